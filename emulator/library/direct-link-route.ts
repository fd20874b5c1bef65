// A stored file's direct link (`urls.file`, and `objects.file.url` of its share): public, as the
// service's own upload script prints it for people to open, so no token; the file's bytes with
// its type. The id and the name must both match, so ids alone cannot be walked.
import { createReadStream } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import type { EmulatorContext } from '../context.js'
import { sendJson } from '../http/replies.js'

export function directLinkRoute (app: FastifyInstance, context: EmulatorContext): void {
  app.get<{ Params: { file_id: string, name: string } }>('/media/:file_id/:name', async (request, reply) => {
    const file = /^\d{1,15}$/.test(request.params.file_id) ? context.uploads.file(Number(request.params.file_id)) : undefined
    if (file === undefined || file.filename !== request.params.name) return sendJson(reply, 404, { error: 'not_found', error_description: 'No such file.' })
    return await reply
      .type(file.mimeType)
      .header('content-length', String(file.size))
      .header('content-disposition', `inline; filename*=UTF-8''${encodeURIComponent(file.filename)}`)
      .header('x-content-type-options', 'nosniff')
      // An uploaded page must not script this origin, which is also the consent page's.
      .header('content-security-policy', 'sandbox')
      .send(createReadStream(file.path))
  })
}
