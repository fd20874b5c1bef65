// POST /api/upload/file: the one-request upload of on-premise installs (token, folder_id, file).
// The file streams to disk like a direct upload; the credential may be a form field that comes
// after the file, so a header credential is checked at once and a form one at the end.
import type { FastifyInstance } from 'fastify'
import type { EmulatorContext } from '../context.js'
import { badRequest } from '../http/emulator-error.js'
import { sendJson } from '../http/replies.js'
import { searchParamsOf } from '../http/requests.js'
import { fileStored } from '../upload/file-lifecycle.js'
import { defaultTitle, uploadAnswer } from '../upload/file-views.js'
import { receiveFile } from '../upload/receive-file.js'
import { existingFolder } from '../upload/upload-checks.js'
import { parseFolderId } from '../upload/upload-options.js'
import { authenticate, requireScope } from './authenticate.js'

/** Registered in a scope that leaves the body unread (http/body-parsers.ts, acceptStream). */
export function singleCallUploadRoute (app: FastifyInstance, context: EmulatorContext): void {
  app.post('/api/upload/file', async (request, reply) => {
    if (request.headers.authorization !== undefined) requireScope(authenticate(context, request), 'upload')
    const { fields, file } = await receiveFile(request.raw, context.uploads.incomingDir)
    let folderId: number
    let caller
    try {
      caller = authenticate(context, request, fields.private_token)
      requireScope(caller, 'upload')
      const folderValue = fields.folder_id ?? searchParamsOf(request).get('folder_id') ?? ''
      folderId = existingFolder(context, caller.user.name, folderValue === '' ? 0 : parseFolderId(folderValue))
      if (fields.title !== undefined && fields.title.length > 500) throw badRequest('title must be at most 500 characters.')
    } catch (error) {
      await context.uploads.discard(file)
      throw error
    }
    const stored = await context.uploads.accept(file, {
      ulid: null,
      userName: caller.user.name,
      folderId,
      title: fields.title !== undefined && fields.title !== '' ? fields.title : defaultTitle(file.filename)
    })
    fileStored(context, stored)
    return sendJson(reply, 200, uploadAnswer(context, stored, false))
  })
}
