// The file calls: read one, change its title, delete it (its contents leave the disk too, so a
// test can see a delete really happened).
import type { FastifyInstance } from 'fastify'
import type { EmulatorContext } from '../context.js'
import { fieldsOf } from '../http/body-parsers.js'
import { sendJson } from '../http/replies.js'
import { deleteFile } from '../upload/file-lifecycle.js'
import { sendCacheable } from './etag.js'
import { requestedFile } from './library-access.js'
import { fileTitle } from './library-fields.js'
import { fileView } from './library-views.js'

type FileRoute = { Params: { file_id: string } }

export function fileRoutes (app: FastifyInstance, context: EmulatorContext): void {
  app.get<FileRoute>('/api/files/:file_id', async (request, reply) => {
    const file = requestedFile(context, request, 'basic')
    return sendCacheable(request, reply, fileView(context, file), context.library.current(file.userName))
  })

  app.put<FileRoute>('/api/files/:file_id', async (request, reply) => {
    const file = requestedFile(context, request, 'manage')
    file.title = fileTitle(fieldsOf(request))
    context.library.changed(file.userName)
    return sendJson(reply, 200, fileView(context, file))
  })

  app.delete<FileRoute>('/api/files/:file_id', async (request, reply) => {
    const file = requestedFile(context, request, 'manage')
    await deleteFile(context, file)
    return sendJson(reply, 200, { status: 'success' })
  })
}
