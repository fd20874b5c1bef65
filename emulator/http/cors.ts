// CORS for browsers calling the emulator straight from a website's page, as the service's own
// published web example does: the upload origin (files posted to the signed URL) and the API
// (with a private token or a Bearer token in Authorization, JSON bodies). Preflights are answered
// and every answer (errors included, or the page could not read them) carries the allowed
// origin. No credentials: the signed URL or the Authorization header is the credential.
import type { FastifyReply, FastifyRequest } from 'fastify'

const allowedHeaders = ['authorization', 'content-type', 'x-requested-with', 'x-csrf']

export function isAllowedOrigin (origin: string, allowed: string[] | undefined): boolean {
  return allowed === undefined || allowed.includes('*') || allowed.includes(origin)
}

/** Sets Access-Control-Allow-Origin when the request's origin may read the answer. */
export function applyCorsHeaders (request: FastifyRequest, reply: FastifyReply, allowed: string[] | undefined): void {
  reply.header('vary', 'Origin')
  const origin = request.headers.origin
  if (origin === undefined || !isAllowedOrigin(origin, allowed)) return
  reply.header('access-control-allow-origin', origin)
}

export function answerPreflight (request: FastifyRequest, reply: FastifyReply, allowed: string[] | undefined, methods = 'POST, OPTIONS'): FastifyReply {
  const origin = request.headers.origin
  if (origin !== undefined && isAllowedOrigin(origin, allowed)) {
    const requested = (request.headers['access-control-request-headers'] ?? '')
      .split(',').map((name) => name.trim().toLowerCase()).filter((name) => /^[a-z0-9-]+$/.test(name))
    reply.headers({
      'access-control-allow-methods': methods,
      'access-control-allow-headers': [...new Set([...allowedHeaders, ...requested])].join(', '),
      'access-control-max-age': '600'
    })
  }
  return reply.code(204).send()
}
