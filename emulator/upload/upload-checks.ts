// What the direct upload checks before it reads any of the body, cheapest first: the signature
// (403), expiry and finish (410), the folder named by the URL or the registration (404), and a
// declared Content-Length no acceptable upload could have (413). Answering these early is what
// makes the upload host linger (lingering-close.ts): the browser is still sending.
import type { FastifyRequest } from 'fastify'
import type { EmulatorContext } from '../context.js'
import { EmulatorError, notFound } from '../http/emulator-error.js'
import { folderNotFound } from '../library/folder-tree.js'
import { ulidPattern } from '../ulid.js'
import { verifiedExpiry } from './signed-upload-url.js'
import { parseFolderId } from './upload-options.js'
import type { Registration } from './upload-store.js'

/**
 * More than the file can only be the form's other parts: at most 60 parts with their headers
 * and 50 fields of 64 KiB (receive-file.ts). A body declared longer than a limit plus this
 * cannot hold a file within the limit.
 */
const formOverheadBytes = 8 * 1024 * 1024

export function gone (code: string, description: string): EmulatorError {
  return new EmulatorError(410, code, description, { userMessage: 'This upload link is no longer valid. Please start the upload again.' })
}

export function fileTooLarge (limit: number): EmulatorError {
  return new EmulatorError(413, 'file_too_large', `The file is larger than the allowed ${limit} bytes.`, { userMessage: 'The file is too large.' })
}

export function uploadTooLarge (limit: number): EmulatorError {
  return new EmulatorError(413, 'upload_too_large', `The files of this upload may total at most ${limit} bytes.`, { userMessage: 'The files are too large in total.' })
}

export function openRegistration (context: EmulatorContext, ulid: string, query: URLSearchParams): Registration {
  const expires = ulidPattern.test(ulid) ? verifiedExpiry(ulid, query, context.settings.signingKey) : undefined
  if (expires === undefined) {
    throw new EmulatorError(403, 'invalid_signature', 'The upload URL is not genuine (its signature does not match).', { userMessage: 'This upload link is invalid.' })
  }
  const registration = context.uploads.registration(ulid)
  if (Date.now() >= Math.min(expires * 1000, registration?.expiresAt ?? Infinity)) throw gone('upload_expired', 'The upload URL has expired.')
  if (registration === undefined) throw notFound('The upload registration is unknown.')
  if (registration.finished) throw gone('upload_finished', 'The upload was finished; register a new one for more files.')
  return registration
}

/** The folder a user's upload goes to, which must exist. */
export function existingFolder (context: EmulatorContext, userName: string, folderId: number): number {
  if (context.folders.folder(userName, folderId) === undefined) throw folderNotFound(folderId)
  return folderId
}

/**
 * The folder the URL's query or else the registration names, checked now; a folder_id form
 * field may still override it once the form has arrived.
 */
export function folderBeforeBody (context: EmulatorContext, registration: Registration, query: URLSearchParams): number {
  const queryFolder = query.get('folder_id')
  return existingFolder(context, registration.userName, queryFolder === null ? registration.folderId : parseFolderId(queryFolder))
}

export function refuseDeclaredLength (request: FastifyRequest, registration: Registration): void {
  const declared = Number(request.headers['content-length'])
  if (!Number.isSafeInteger(declared)) return
  const { maxFilesize, maxSize } = registration.options
  if (maxFilesize !== undefined && declared > maxFilesize + formOverheadBytes) throw fileTooLarge(maxFilesize)
  const room = maxSize === undefined ? undefined : maxSize - registration.committedBytes - registration.reservedBytes
  if (maxSize !== undefined && room !== undefined && declared > room + formOverheadBytes) throw uploadTooLarge(maxSize)
}
