// CSRF defence for every state-changing route, present and future: a custom header (which a
// cross-site form cannot send and a cross-site fetch cannot send without a CORS preflight we
// never grant) and, when the browser says where the request comes from, an allowed Origin.
// A route that no browser calls and that carries no cookie's authority (the media service's
// webhooks, verified by their own signature) says so with `config: { serverToServer: true }`; a
// reading route that a foreign page must not use with the cookie's authority either (the live
// channel, held open) asks for the Origin check alone with `config: { allowedOriginsOnly: true }`.
import fp from 'fastify-plugin'
import type { FastifyContextConfig, FastifyRequest } from 'fastify'
import { AppError } from '../src/errors.js'
import { guardRoute } from './route-guards.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Called by servers, never with a session: exempt from the CSRF check. */
    serverToServer?: boolean
    /** A safe method that still refuses a foreign Origin (no X-CSRF asked: an EventSource cannot send it). */
    allowedOriginsOnly?: boolean
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** Whether a request of this method to a route of this config must carry X-CSRF: 1 (the OpenAPI description declares it by the same rule: plugins/docs-security.ts). */
export function needsCsrfHeader (method: string, config: FastifyContextConfig | undefined): boolean {
  return !SAFE_METHODS.has(method) && config?.serverToServer !== true
}

export default fp(async (app) => {
  const allowed = new Set(app.config.allowedOrigins)
  const refused = (request: FastifyRequest): AppError | undefined => {
    const origin = request.headers.origin
    return origin !== undefined && !allowed.has(origin) ? new AppError('csrf_failed', 'This request comes from an origin that may not call media-bff.') : undefined
  }
  // Every request with a method that may change state, to any path (a route added later, one that
  // does not exist): a callback hook, as a read (most requests) passes at once.
  app.addHook('onRequest', (request, _reply, done) => {
    if (!needsCsrfHeader(request.method, request.routeOptions.config)) {
      done()
      return
    }
    done(request.headers['x-csrf'] !== '1' ? new AppError('csrf_failed', 'This request needs the header X-CSRF: 1.') : refused(request))
  })
  // A reading route that asks for the Origin check alone has it attached (plugins/route-guards.ts).
  app.addHook('onRoute', (route) => {
    if (route.config?.allowedOriginsOnly !== true) return
    guardRoute(route, 'onRequest', (request, _reply, done) => { done(SAFE_METHODS.has(request.method) ? refused(request) : undefined) })
  })
}, { name: 'csrf', dependencies: ['config'] })
