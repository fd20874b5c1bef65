// The page's live channel (the browser module's liveEvents): when one of this person's uploads
// changes at the media service (finished, then processed), the open folder's list shows the file
// as the service now describes it, in every tab of every browser the person is signed in on.
// After a long disconnection the folder is read again; a session's end is the session watch's.
import type { FolderContents, LiveChannel, MediaBffClient, MediaFile } from '../client/media-bff-client.js'
import { readId } from './ids.js'

export interface LiveUpdateHandlers {
  /** The folder shown now, if any. */
  shown: () => { folderId: number, contents: FolderContents } | undefined
  /** Shows these contents in place of the current ones. */
  show: (contents: FolderContents) => void
  /** Reads the shown folder again. */
  reload: () => void
}

export function followLiveUpdates (bff: MediaBffClient, handlers: LiveUpdateHandlers): LiveChannel {
  const channel = bff.liveEvents()
  channel.on('file', ({ file }) => {
    const shown = handlers.shown()
    if (shown === undefined || readId(file.folder_id) !== shown.folderId) return
    handlers.show({ ...shown.contents, files: withFile(shown.contents.files, file) })
  })
  channel.on('resync', () => { handlers.reload() })
  return channel
}

/** The list with this file in it: updated where it was, added at the end when it is new here. */
function withFile (files: readonly MediaFile[], file: MediaFile): MediaFile[] {
  const id = readId(file.file_id)
  const at = files.findIndex((listed) => readId(listed.file_id) === id)
  if (at < 0) return [...files, file]
  return files.map((listed, i) => i === at ? { ...listed, ...file } : listed)
}
