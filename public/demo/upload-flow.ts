// One batch upload, as the page runs it: one registration for the chosen folder (autofinish
// off, or the service could close the upload after the first file while the others are still on
// their way), every file straight to the upload host in parallel with its progress row, then
// finish. Outcomes are announced here; refusals of media-bff are thrown to the caller.
import type { MediaBffClient } from '../client/media-bff-client.js'
import { readId } from './ids.js'
import { showNotice } from './notice.js'
import { addProgressRow } from './upload-view.js'

export interface UploadRequest {
  files: readonly File[]
  folderId: number
  folderName: string
  title: string
}

/** The ids of the files the service stored; undefined when none was. */
export async function uploadBatch (bff: MediaBffClient, { files, folderId, folderName, title }: UploadRequest): Promise<number[] | undefined> {
  const registration = await bff.registerUpload({ folderId, options: { autofinish: false } })
  const rows = files.map(addProgressRow)
  const outcomes = await Promise.allSettled(files.map(async (file, index) => {
    await bff.uploadFile(registration, file, { title, onProgress: rows[index]?.progress })
  }))
  const failures: string[] = []
  outcomes.forEach((outcome, index) => {
    if (outcome.status === 'fulfilled') {
      rows[index]?.succeed()
    } else {
      const message = outcome.reason instanceof Error ? outcome.reason.message : 'The upload failed.'
      rows[index]?.fail(message)
      failures.push(message)
    }
  })
  if (failures.length === files.length) {
    showNotice({ kind: 'error', code: 'upload_failed', text: `No file was uploaded. ${failures[0] ?? ''}`.trim() })
    return undefined
  }
  const finished = await bff.finishUpload(registration)
  const stored = files.length - failures.length
  showNotice(failures.length === 0
    ? { kind: 'success', code: 'upload_done', text: stored === 1 ? `Your file is in ${folderName}.` : `All ${stored} files are in ${folderName}.` }
    : { kind: 'warning', code: 'upload_partial', text: `${stored} of ${files.length} files uploaded to ${folderName}; the failed ones are marked below.` })
  return finished.files.flatMap((file) => {
    const id = readId(file.file_id)
    return id === undefined ? [] : [id]
  })
}
