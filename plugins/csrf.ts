// CSRF defence (RFC 10017 §6.1.3.3.2): every request to media-bff's API, reads included, carries
// the custom header X-CSRF: 1, and, when the browser says where it comes from, an allowed Origin.
// A cross-site form or link cannot send a custom header, and a cross-site script cannot without
// a CORS preflight media-bff grants only to ALLOWED_ORIGINS; once a static header is the defence,
// the RFC asks that every request carry it, since a read spends the person's token or shows
// their data as surely as a write changes it.
//
// Routes the website's scripts do not call say who does instead, with `config: { caller }`:
// top-level navigations (sign-in, the callback), which cannot carry a header; servers with a
// credential of their own (the media service's signed webhooks); and public resources that act on
// no session (probes, the browser module, the demo's files). Operators' routes (`operators`,
// plugins/operators.ts) answer only their bearer token. A request to no route at all is held to
// the header when its method may change state, so a route added later cannot be written to
// without it before it declares anything.
import fp from 'fastify-plugin'
import type { FastifyContextConfig, FastifyRequest } from 'fastify'
import { AppError } from '../src/errors.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Who calls this route, when it is not a page's script acting with the session (which must
     * send X-CSRF: 1): `navigation`, the browser itself at the top level; `server`, another
     * server with a credential of its own; `anyone`, for a public resource that acts on no session.
     */
    caller?: 'navigation' | 'server' | 'anyone'
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Whether a request of this method to a route of this config must carry X-CSRF: 1 (`routed`:
 * whether any route matched). The OpenAPI description declares the header by the same rule
 * (plugins/docs-security.ts).
 */
export function needsCsrfHeader (method: string, config: FastifyContextConfig | undefined, routed = true): boolean {
  // A CORS preflight never carries the headers of the request it asks about.
  if (method === 'OPTIONS') return false
  if (!routed) return !SAFE_METHODS.has(method)
  return config?.caller === undefined && config?.operators === undefined
}

export default fp(async (app) => {
  const allowed = new Set(app.config.allowedOrigins)
  const refusal = (request: FastifyRequest): AppError | undefined => {
    if (request.headers['x-csrf'] !== '1') {
      return new AppError('csrf_failed', 'This request needs the header X-CSRF: 1: media-bff answers its API only to requests that carry it (the browser module sends it on every call).')
    }
    const origin = request.headers.origin
    return origin !== undefined && !allowed.has(origin) ? new AppError('csrf_failed', 'This request comes from an origin that may not call media-bff.') : undefined
  }
  // Every request, to any path (a route added later, one that does not exist): a callback hook,
  // as most requests pass at once.
  app.addHook('onRequest', (request, _reply, done) => {
    done(needsCsrfHeader(request.method, request.routeOptions.config, !request.is404) ? refusal(request) : undefined)
  })
}, { name: 'csrf', dependencies: ['config'] })
