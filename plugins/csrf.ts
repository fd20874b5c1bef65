// CSRF defence for every state-changing route, present and future: a custom header (which a
// cross-site form cannot send and a cross-site fetch cannot send without a CORS preflight we
// never grant) and, when the browser says where the request comes from, an allowed Origin.
// A route that no browser calls and that carries no cookie's authority (the media service's
// webhooks, verified by their own signature) says so with `config: { serverToServer: true }`; a
// reading route that a foreign page must not use with the cookie's authority either (the live
// channel, held open) asks for the Origin check alone with `config: { allowedOriginsOnly: true }`.
import fp from 'fastify-plugin'
import { AppError } from '../src/errors.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Called by servers, never with a session: exempt from the CSRF check. */
    serverToServer?: boolean
    /** A safe method that still refuses a foreign Origin (no X-CSRF asked: an EventSource cannot send it). */
    allowedOriginsOnly?: boolean
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

export default fp(async (app) => {
  const allowed = new Set(app.config.allowedOrigins)
  // A callback hook, not an async one: it runs on every request and almost never waits.
  app.addHook('onRequest', (request, _reply, done) => {
    const { config } = request.routeOptions
    const safe = SAFE_METHODS.has(request.method)
    if ((safe && config.allowedOriginsOnly !== true) || config.serverToServer === true) {
      done()
      return
    }
    if (!safe && request.headers['x-csrf'] !== '1') {
      done(new AppError('csrf_failed', 'This request needs the header X-CSRF: 1.'))
      return
    }
    const origin = request.headers.origin
    done(origin !== undefined && !allowed.has(origin) ? new AppError('csrf_failed', 'This request comes from an origin that may not call media-bff.') : undefined)
  })
}, { name: 'csrf', dependencies: ['config'] })
