// CORS for the upload origin: browsers post files to it straight from the website's page, so
// it answers preflights and marks every answer (errors included, or the page could not read
// them) with the allowed origin. No credentials: the signed URL is the credential.
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

export function answerPreflight (request: FastifyRequest, reply: FastifyReply, allowed: string[] | undefined): FastifyReply {
  const origin = request.headers.origin
  if (origin !== undefined && isAllowedOrigin(origin, allowed)) {
    const requested = (request.headers['access-control-request-headers'] ?? '')
      .split(',').map((name) => name.trim().toLowerCase()).filter((name) => /^[a-z0-9-]+$/.test(name))
    reply.headers({
      'access-control-allow-methods': 'POST, OPTIONS',
      'access-control-allow-headers': [...new Set([...allowedHeaders, ...requested])].join(', '),
      'access-control-max-age': '600'
    })
  }
  return reply.code(204).send()
}
