// The tenant API origin: OAuth, the API proper and the test hooks. Each group is a Fastify
// plugin scope of its own because each reads its body its own way (http/body-parsers.ts).
import type { FastifyInstance } from 'fastify'
import type { EmulatorContext } from './context.js'
import { singleCallUploadRoute } from './api/single-call-upload-route.js'
import { uploadRegistrationRoutes } from './api/upload-registration-routes.js'
import { userInfoRoute } from './api/user-info-route.js'
import { emulatorHookRoutes } from './hooks/emulator-hook-routes.js'
import { webhookHookRoutes } from './hooks/webhook-hook-routes.js'
import { acceptFields, acceptForm, acceptStream } from './http/body-parsers.js'
import { createEmulatorServer } from './http/server.js'
import { answerPreflight, applyCorsHeaders } from './http/cors.js'
import { libraryScope } from './library/library-scope.js'
import { authorizeRoutes } from './oauth/authorize-routes.js'
import { tokenRoute } from './oauth/token-route.js'

export function buildApiServer (context: EmulatorContext): FastifyInstance {
  const app = createEmulatorServer(() => context.listening)
  // Every request to /api/ is recorded before a route, a fault or a 404 can refuse it. Not
  // recorded: the 503s of a server still starting (http/server.ts: that hook runs first), and
  // paths whose parameters cannot be decoded (Fastify answers those without running hooks).
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.url === '/api' || request.url.startsWith('/api/') || request.url.startsWith('/api?')) context.received.record(request.raw)
    done()
  })
  // The API answers browsers on other origins (the service's own web example calls it with a
  // private token); OAuth (/api/oauth2/*) is for navigations and media-bff, never for scripts.
  const forScripts = (url: string): boolean => url.startsWith('/api/') && !url.startsWith('/api/oauth2/')
  // The preflight is answered here, before routing matters: no route has OPTIONS, so every other
  // method keeps its own 404 or 405.
  app.addHook('onRequest', (request, reply, done) => {
    if (!forScripts(request.url)) {
      done()
      return
    }
    applyCorsHeaders(request, reply, context.settings.corsOrigins)
    if (request.method === 'OPTIONS') {
      answerPreflight(request, reply, context.settings.corsOrigins, 'GET, POST, PUT, DELETE, OPTIONS')
      return
    }
    done()
  })
  app.register(async (scope) => {
    acceptForm(scope)
    authorizeRoutes(scope, context)
    tokenRoute(scope, context)
  })
  app.register(async (scope) => {
    acceptFields(scope)
    userInfoRoute(scope, context)
    uploadRegistrationRoutes(scope, context)
    emulatorHookRoutes(scope, context)
    webhookHookRoutes(scope, context)
  })
  app.register(async (scope) => { libraryScope(scope, context) })
  app.register(async (scope) => {
    acceptStream(scope)
    singleCallUploadRoute(scope, context)
  })
  return app
}
