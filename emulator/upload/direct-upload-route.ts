// POST {url_upload_direct}: the pre-authorized upload on the upload origin. The signed URL is
// the only credential (an Authorization header is ignored). Checks run from cheapest to
// dearest: those that need no body first (upload-checks.ts), then the limits while the file
// streams.
import type { FastifyInstance } from 'fastify'
import type { EmulatorContext } from '../context.js'
import { faultHook } from '../faults.js'
import { EmulatorError, badRequest } from '../http/emulator-error.js'
import { sendJson } from '../http/replies.js'
import { searchParamsOf } from '../http/requests.js'
import { fileStored } from './file-lifecycle.js'
import { defaultTitle, extensionOf, uploadAnswer } from './file-views.js'
import { receiveFile } from './receive-file.js'
import { existingFolder, folderBeforeBody, gone, openRegistration, refuseDeclaredLength, uploadTooLarge } from './upload-checks.js'
import { parseFolderId } from './upload-options.js'

/** Registered in a scope that leaves the body unread (http/body-parsers.ts, acceptStream). */
export function directUploadRoute (app: FastifyInstance, context: EmulatorContext): void {
  app.post<{ Params: { ulid: string } }>('/upload/:ulid', { onRequest: faultHook(context.faults, 'upload_direct') }, async (request, reply) => {
    const query = searchParamsOf(request)
    const registration = openRegistration(context, request.params.ulid, query)
    const { options } = registration
    const folderFromUrl = folderBeforeBody(context, registration, query)
    refuseDeclaredLength(request, registration)

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
            throw uploadTooLarge(options.maxSize)
          }
          registration.reservedBytes += bytes
          reservedBytes += bytes
        }
      })
      let folderId: number
      try {
        // Checked again: the folder may have been deleted while the file was arriving.
        folderId = existingFolder(context, registration.userName, fields.folder_id !== undefined && fields.folder_id !== '' ? parseFolderId(fields.folder_id) : folderFromUrl)
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
      fileStored(context, stored)
      return sendJson(reply, 200, uploadAnswer(context, stored, options.hideResponse))
    } finally {
      if (reservedFile) registration.reservedFiles -= 1
      registration.reservedBytes -= reservedBytes
    }
  })
}
