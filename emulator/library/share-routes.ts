// Sharing: a file's or a folder's public link and embed code, and share links for a set of
// files. The links point at the tenant site (/share/..., /s/...), which the emulator does not
// serve: clients only pass them on to people.
import type { FastifyInstance } from 'fastify'
import type { EmulatorContext } from '../context.js'
import { fieldsOf } from '../http/body-parsers.js'
import { flag } from '../http/field-readers.js'
import { sendJson } from '../http/replies.js'
import { randomToken } from '../random-token.js'
import { sendCacheable } from './etag.js'
import { callerWithScope, ownFile, requestedFile, requestedFolder } from './library-access.js'
import { expiry, fileIds } from './library-fields.js'
import { embedCode } from './library-views.js'
import { fileUrl } from '../upload/file-views.js'

export function fileShareUrl (context: EmulatorContext, fileId: number): string {
  return `${context.baseUrl}/share/${fileId}`
}

export function shareRoutes (app: FastifyInstance, context: EmulatorContext): void {
  app.get<{ Params: { file_id: string } }>('/api/files/:file_id/share', async (request, reply) => {
    const file = requestedFile(context, request, 'share')
    const url = fileShareUrl(context, file.fileId)
    // objects.file.url: the file's direct link, which the service's command-line example prints.
    const shared = { file_id: file.fileId, url, embed: embedCode(url, file.title), objects: { file: { url: fileUrl(context, file) } } }
    return sendCacheable(request, reply, shared, context.library.current(file.userName))
  })

  app.get<{ Params: { folder_id: string } }>('/api/folders/:folder_id/share', async (request, reply) => {
    const folder = requestedFolder(context, request, 'share')
    const url = `${context.baseUrl}/share/folder/${folder.folderId}`
    return sendCacheable(request, reply, { folder_id: folder.folderId, url, embed: embedCode(url, folder.name) }, context.library.current(folder.userName))
  })

  // The real service puts this under file 0: the files come in the body.
  app.post('/api/files/0/share/link', async (request, reply) => {
    const caller = callerWithScope(context, request, 'share')
    const fields = fieldsOf(request)
    const ids = fileIds(fields)
    const download = flag(fields, 'download', false)
    const expires = expiry(fields, Date.now())
    for (const id of ids) ownFile(context, caller, id)
    return sendJson(reply, 201, { status: 'success', link: `${context.baseUrl}/s/${randomToken()}`, files: ids, download, expires })
  })
}
