// The library API (folders, files, sharing, oEmbed) as one Fastify plugin scope: it reads
// bodies as fields (JSON, url-encoded or multipart alike) and marks every answer, errors and
// injected faults included, with a load-balancer style affinity cookie. A BFF must never pass
// upstream cookies on to browsers; the cookie is here so its tests can prove that.
import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type { EmulatorContext } from '../context.js'
import { faultHook } from '../faults.js'
import { acceptFields } from '../http/body-parsers.js'
import { fileRoutes } from './file-routes.js'
import { folderRoutes } from './folder-routes.js'
import { oembedRoute } from './oembed-route.js'
import { shareRoutes } from './share-routes.js'
import { directLinkRoute } from './direct-link-route.js'

export const affinityCookieName = 'emulator_affinity'

export function libraryScope (scope: FastifyInstance, context: EmulatorContext): void {
  acceptFields(scope)
  scope.addHook('onRequest', (_request, reply, done) => {
    reply.header('set-cookie', `${affinityCookieName}=${randomBytes(12).toString('base64url')}; Path=/; HttpOnly`)
    done()
  })
  // Every library route is faultable as `library`; added after the cookie hook, so faulted
  // answers carry the cookie too.
  scope.addHook('onRequest', faultHook(context.faults, 'library'))
  folderRoutes(scope, context)
  fileRoutes(scope, context)
  shareRoutes(scope, context)
  directLinkRoute(scope, context)
  oembedRoute(scope, context)
}
