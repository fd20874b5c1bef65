// The JSON shapes of a stored file in upload and finish answers, in one place so the direct
// upload, the single-call upload and finish agree.
import type { EmulatorContext } from '../context.js'
import type { StoredFile } from './upload-store.js'

/** The file's direct link: its bytes, for anyone holding the link (library/direct-link-route.ts). */
export function fileUrl (context: EmulatorContext, file: StoredFile): string {
  return `${context.baseUrl}/media/${file.fileId}/${encodeURIComponent(file.filename)}`
}

export function shareUrl (context: EmulatorContext, file: StoredFile): string {
  return `${context.baseUrl}/api/files/${file.fileId}/share`
}

/**
 * The answer to an accepted upload; hide_response leaves out ids and links. Its `status` is the
 * upload's outcome ("success"), as published and as clients check it, so the file's own status
 * (always "processing" at this moment) is not in it: the finish answer and the file view have it.
 */
export function uploadAnswer (context: EmulatorContext, file: StoredFile, hideResponse: boolean): Record<string, unknown> {
  if (hideResponse) return { status: 'success', title: file.title }
  return { status: 'success', file_id: file.fileId, title: file.title, api: { share: shareUrl(context, file) } }
}

export function fileEntry (context: EmulatorContext, file: StoredFile): Record<string, unknown> {
  return {
    file_id: file.fileId,
    folder_id: file.folderId,
    title: file.title,
    filename: file.filename,
    size: file.size,
    mime_type: file.mimeType,
    created: Math.floor(file.uploadedAt / 1000),
    status: file.status,
    urls: { file: fileUrl(context, file) }
  }
}

/** A title when the client gave none: the file name without its extension. */
export function defaultTitle (filename: string): string {
  const dot = filename.lastIndexOf('.')
  return dot > 0 ? filename.slice(0, dot) : filename
}

export function extensionOf (filename: string): string {
  const dot = filename.lastIndexOf('.')
  return dot < 0 ? '' : filename.slice(dot + 1).toLowerCase()
}
