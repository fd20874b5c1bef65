// The file itself goes straight from the browser to the media service's upload host.
import { abortedError, MediaBffError, timeoutError } from './errors.js'
import { parseJson } from './json.js'
import type { DirectUploadResult, UploadFileOptions, UploadRegistration } from './types.js'

/**
 * Posts one file straight to the registration's upload address (multipart `file`, `title`,
 * `folder_id`). Uses XMLHttpRequest because fetch cannot report upload progress. Sends no
 * cookies and no custom headers: the signed URL is the credential. With `onProgress` the browser
 * sends a CORS preflight first (the Fetch standard makes it for any XMLHttpRequest whose upload
 * is listened to), so the upload host must answer OPTIONS for the page's origin, as the media
 * service's does; without it, the plain multipart POST goes without one. Files of one
 * registration may be uploaded concurrently.
 */
export async function uploadFile (registration: Pick<UploadRegistration, 'url_upload_direct'>, file: Blob, options: UploadFileOptions = {}): Promise<DirectUploadResult> {
  const { title, folderId, onProgress, signal, timeoutMs } = options
  const form = new FormData()
  if (folderId !== undefined) form.append('folder_id', String(folderId))
  if (title !== undefined && title !== '') form.append('title', title)
  // The file goes last so a streaming server already has the other fields when it arrives.
  const filename = options.filename ?? (file instanceof File ? file.name : 'upload')
  form.append('file', file, filename)

  return await new Promise<DirectUploadResult>((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(abortedError('The upload'))
      return
    }
    const xhr = new XMLHttpRequest()
    const abort = (): void => { xhr.abort() }
    const settle = (): void => { signal?.removeEventListener('abort', abort) }
    xhr.open('POST', registration.url_upload_direct)
    xhr.responseType = 'text'
    if (timeoutMs !== undefined) xhr.timeout = timeoutMs
    // Only when asked for: listening to the upload is what makes the browser preflight it.
    if (onProgress !== undefined) {
      xhr.upload.addEventListener('progress', (event) => {
        onProgress(event.loaded, event.lengthComputable ? event.total : file.size)
      })
    }
    xhr.addEventListener('load', () => {
      settle()
      const body = parseJson(xhr.responseText)
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress?.(file.size, file.size)
        resolve({ status: 'success', ...body })
      } else {
        reject(uploadError(xhr.status, body))
      }
    })
    xhr.addEventListener('error', () => {
      settle()
      reject(new MediaBffError(0, 'network_error', 'The upload could not reach the media service (offline, or the upload host refused this site).'))
    })
    xhr.addEventListener('abort', () => {
      settle()
      reject(abortedError('The upload'))
    })
    xhr.addEventListener('timeout', () => {
      settle()
      reject(timeoutError('The upload host'))
    })
    signal?.addEventListener('abort', abort, { once: true })
    xhr.send(form)
  })
}

/** The upload host's refusal; its user_message is meant for people, error_description for developers. */
function uploadError (status: number, body: Record<string, unknown> | undefined): MediaBffError {
  const text = (key: string): string | undefined => typeof body?.[key] === 'string' && body[key] !== '' ? body[key] : undefined
  const message = text('user_message') ?? text('error_description') ?? `The media service refused the file (HTTP ${status}).`
  return new MediaBffError(status, text('error') ?? 'upload_failed', message, {
    error_description: text('error_description'),
    user_message: text('user_message')
  })
}
