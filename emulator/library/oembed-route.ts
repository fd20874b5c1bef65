// GET /api/oembed?url=...: the oEmbed description (https://oembed.com) of one of the caller's
// file share links, so a site can embed it. Only the caller's own share URLs are described; any
// other URL is a 404, as for a file that does not exist.
import type { FastifyInstance } from 'fastify'
import type { EmulatorContext } from '../context.js'
import { badRequest, notFound } from '../http/emulator-error.js'
import { numericId } from '../http/field-readers.js'
import { searchParamsOf } from '../http/requests.js'
import { sendCacheable } from './etag.js'
import { callerWithScope } from './library-access.js'
import { embedCode } from './library-views.js'
import { fileShareUrl } from './share-routes.js'

/** The file id of a share URL exactly as the share call writes it, else undefined. */
function sharedFileId (context: EmulatorContext, url: string): number | undefined {
  const prefix = `${context.baseUrl}/share/`
  const rest = url.startsWith(prefix) ? url.slice(prefix.length) : ''
  return numericId.test(rest) && fileShareUrl(context, Number(rest)) === url ? Number(rest) : undefined
}

export function oembedRoute (app: FastifyInstance, context: EmulatorContext): void {
  // The router ignores a trailing slash, so this also answers /api/oembed/.
  app.get('/api/oembed', async (request, reply) => {
    const caller = callerWithScope(context, request, 'basic')
    const urls = searchParamsOf(request).getAll('url')
    if (urls.length !== 1 || urls[0] === '') throw badRequest('url must be given once: the share URL of one of your files.')
    const url = urls[0] as string
    const fileId = sharedFileId(context, url)
    const file = fileId === undefined ? undefined : context.uploads.file(fileId)
    if (file === undefined || file.userName !== caller.user.name) throw notFound('The url is not the share URL of one of your files.')
    return sendCacheable(request, reply, {
      version: '1.0',
      type: 'video',
      provider_name: 'media emulator',
      title: file.title,
      html: embedCode(url, file.title),
      width: 640,
      height: 360
    }, context.library.current(caller.user.name))
  })
}
