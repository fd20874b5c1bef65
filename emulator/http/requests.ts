// What routes read off a request besides its parsed body: the media type, whether a body was
// sent, the query as URLSearchParams (repeated parameters stay visible, which the OAuth checks
// need), and how to give up on a body that will not be read.
import type { IncomingHttpHeaders } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'

export function mediaTypeOf (request: { headers: IncomingHttpHeaders }): string {
  return (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
}

export function hasBody (request: { headers: IncomingHttpHeaders }): boolean {
  const length = request.headers['content-length']
  if (length !== undefined) return length !== '0'
  return request.headers['transfer-encoding'] !== undefined
}

export function searchParamsOf (request: FastifyRequest): URLSearchParams {
  const start = request.url.indexOf('?')
  return new URLSearchParams(start < 0 ? '' : request.url.slice(start + 1))
}

/**
 * For an answer sent before the body has arrived (a limit was crossed, a fault was injected):
 * stop parsing, discard the rest, and close the connection after the answer so the client
 * stops sending.
 */
export function abandonUnreadBody (request: FastifyRequest, reply: FastifyReply): void {
  if (request.raw.complete || !hasBody(request)) return
  request.raw.unpipe()
  request.raw.resume()
  if (!reply.raw.headersSent) reply.header('connection', 'close')
}
