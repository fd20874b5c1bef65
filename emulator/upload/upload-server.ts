// The upload origin: the direct upload and its CORS preflight. Nothing else lives on this
// origin, as on the real service's separate upload host.
import type { FastifyInstance } from 'fastify'
import type { EmulatorContext } from '../context.js'
import { acceptStream } from '../http/body-parsers.js'
import { hasBody } from '../http/requests.js'
import { createEmulatorServer } from '../http/server.js'
import { answerPreflight, applyCorsHeaders } from '../http/cors.js'
import { directUploadRoute } from './direct-upload-route.js'
import { lingerAfterAnswer } from './lingering-close.js'

export function buildUploadServer (context: EmulatorContext): FastifyInstance {
  const app = createEmulatorServer(() => context.listening)
  // Every answer carries the CORS headers, 404s and faults included.
  app.addHook('onRequest', (request, reply, done) => {
    applyCorsHeaders(request, reply, context.settings.corsOrigins)
    done()
  })
  // An answer sent while the body is still arriving (a refusal, a fault) closes the connection,
  // but only after the client has had time to stop sending, so a browser gets to read it.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!request.raw.complete && hasBody(request)) {
      reply.header('connection', 'close')
      lingerAfterAnswer(request.raw, context.settings.lingeringClose)
    }
    done(null, payload)
  })
  app.register(async (scope) => {
    acceptStream(scope)
    directUploadRoute(scope, context)
    scope.options('/upload/:ulid', async (request, reply) => {
      context.counters.uploadPreflights++
      return answerPreflight(request, reply, context.settings.corsOrigins)
    })
  })
  return app
}
