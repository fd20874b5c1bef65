// POST /api/upload/file: the one-request upload of on-premise installs (token, folder_id, file).
// The file streams to disk like a direct upload; the credential may be a form field that comes
// after the file, so a header credential is checked at once and a form one at the end.
import type { EmulatorContext } from '../context.js'
import { sendJson } from '../http/responses.js'
import type { Route, RouteContext } from '../http/router.js'
import { defaultTitle, uploadAnswer } from '../upload/file-views.js'
import { receiveFile } from '../upload/receive-file.js'
import { parseFolderId } from '../upload/upload-options.js'
import { authenticate, requireScope } from './authenticate.js'
import { badRequest } from '../http/emulator-error.js'

export function singleCallUploadRoute (context: EmulatorContext): Route {
  const handler = async (route: RouteContext): Promise<void> => {
    if (route.req.headers.authorization !== undefined) requireScope(authenticate(context, route.req), 'upload')
    const { fields, file } = await receiveFile(route.req, context.uploads.incomingDir)
    let folderId: number
    let caller
    try {
      caller = authenticate(context, route.req, fields.private_token)
      requireScope(caller, 'upload')
      const folderValue = fields.folder_id ?? route.url.searchParams.get('folder_id') ?? ''
      folderId = folderValue === '' ? 0 : parseFolderId(folderValue)
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
    context.counters.uploads += 1
    sendJson(route.res, 200, uploadAnswer(context, stored, false))
  }
  return { method: 'POST', path: '/api/upload/file', handler }
}
