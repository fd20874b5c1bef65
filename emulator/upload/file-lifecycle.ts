// What follows from a file being stored, becoming ready or being deleted, in one place for
// every route that does one of them: the counters, the owner's library version (so a
// conditional GET never hides the change), the processing timer and the account's webhooks.
import type { EmulatorContext } from '../context.js'
import { fileEventData } from '../webhooks/webhook-events.js'
import type { StoredFile } from './upload-store.js'

/** After either upload route has stored a file. */
export function fileStored (context: EmulatorContext, file: StoredFile): void {
  context.counters.uploads += 1
  context.library.changed(file.userName)
  context.processing.begin(file, context.settings.processingMs)
  context.webhooks.emit(file.userName, 'file_upload', fileEventData(file))
}

/** Called by the processing timer (upload/file-processing.ts) once the file is ready. */
export function fileReady (context: EmulatorContext, file: StoredFile): void {
  // Deleted while its upload was being moved into place: nobody can see it any more.
  if (context.uploads.file(file.fileId) !== file) return
  context.library.changed(file.userName)
  context.webhooks.emit(file.userName, 'file_transcode', fileEventData(file))
}

/** Deletes the file, its contents on disk and its processing; file_trash tells its status then. */
export async function deleteFile (context: EmulatorContext, file: StoredFile): Promise<void> {
  context.processing.cancel(file.fileId)
  await context.uploads.remove(file)
  context.library.changed(file.userName)
  context.webhooks.emit(file.userName, 'file_trash', fileEventData(file))
}
