// POST {url_upload_direct}: the pre-authorized upload on the upload origin. The signed URL is
// the only credential (an Authorization header is ignored). Checks run from cheapest to
// dearest: signature (403), expiry and finish (410), then the limits while the file streams.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { EmulatorContext } from '../context.js'
import { faultHook } from '../faults.js'
import { EmulatorError, badRequest, notFound } from '../http/emulator-error.js'
import { sendJson } from '../http/replies.js'
import { searchParamsOf } from '../http/requests.js'
import { ulidPattern } from '../ulid.js'
import { defaultTitle, extensionOf, uploadAnswer } from './file-views.js'
import { receiveFile } from './receive-file.js'
import { verifiedExpiry } from './signed-upload-url.js'
import { parseFolderId } from './upload-options.js'
import type { Registration } from './upload-store.js'

function gone (code: string, description: string): EmulatorError {
  return new EmulatorError(410, code, description, { userMessage: 'This upload link is no longer valid. Please start the upload again.' })
}

type UploadRequest = FastifyRequest<{ Params: { ulid: string } }>

function openRegistration (context: EmulatorContext, request: UploadRequest, query: URLSearchParams): Registration {
  const { ulid } = request.params
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

/** Registered in a scope that leaves the body unread (http/body-parsers.ts, acceptStream). */
export function directUploadRoute (app: FastifyInstance, context: EmulatorContext): void {
  app.post<{ Params: { ulid: string } }>('/upload/:ulid', { onRequest: faultHook(context.faults, 'upload_direct') }, async (request, reply) => {
    const query = searchParamsOf(request)
    const registration = openRegistration(context, request, query)
    const { options } = registration
    const queryFolder = query.get('folder_id')
    const folderFromQuery = queryFolder === null ? undefined : parseFolderId(queryFolder)

    let reservedFile = false
    let reservedBytes = 0
    try {
      const { fields, file } = await receiveFile(request.raw, context.uploads.incomingDir, {
        maxFileSize: options.maxFilesize,
        beforeFile: (filename) => {
          if (options.fileExtensions !== undefined && !options.fileExtensions.includes(extensionOf(filename))) {
            throw new EmulatorError(415, 'file_extension_not_allowed', `Files of type .${extensionOf(filename) || '(none)'} are not allowed here; allowed: ${options.fileExtensions.join(', ')}.`, {
              userMessage: 'This type of file is not allowed.'
            })
          }
          // Concurrent uploads to one URL count against max_files before they finish.
          if (options.maxFiles !== undefined && registration.fileIds.length + registration.reservedFiles >= options.maxFiles) {
            throw new EmulatorError(413, 'too_many_files', `This upload accepts at most ${options.maxFiles} file(s).`, { userMessage: 'Too many files.' })
          }
          registration.reservedFiles += 1
          reservedFile = true
        },
        onBytes: (bytes) => {
          if (options.maxSize !== undefined && registration.committedBytes + registration.reservedBytes + bytes > options.maxSize) {
            throw new EmulatorError(413, 'upload_too_large', `The files of this upload may total at most ${options.maxSize} bytes.`, { userMessage: 'The files are too large in total.' })
          }
          registration.reservedBytes += bytes
          reservedBytes += bytes
        }
      })
      let folderId: number
      try {
        folderId = fields.folder_id !== undefined && fields.folder_id !== '' ? parseFolderId(fields.folder_id) : folderFromQuery ?? registration.folderId
        if (fields.title !== undefined && fields.title.length > 500) throw badRequest('title must be at most 500 characters.')
        if (registration.finished) throw gone('upload_finished', 'The upload was finished while this file was arriving.')
      } catch (error) {
        await context.uploads.discard(file)
        throw error
      }
      const stored = await context.uploads.accept(file, {
        ulid: registration.ulid,
        userName: registration.userName,
        folderId,
        title: fields.title !== undefined && fields.title !== '' ? fields.title : registration.title ?? defaultTitle(file.filename)
      })
      registration.fileIds.push(stored.fileId)
      registration.committedBytes += stored.size
      context.counters.uploads += 1
      return sendJson(reply, 200, uploadAnswer(context, stored, options.hideResponse))
    } finally {
      if (reservedFile) registration.reservedFiles -= 1
      registration.reservedBytes -= reservedBytes
    }
  })
}
