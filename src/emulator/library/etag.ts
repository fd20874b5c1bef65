// Conditional GETs of the library: every successful GET carries a strong ETag, a hash of the
// body, and `Cache-Control: private, no-cache` (a browser or the BFF may keep the answer but must
// revalidate it). A matching If-None-Match is a 304 without a body, so clients that revalidate
// can be tested against a real upstream.
import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'

function entityTag (body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`
}

/**
 * RFC 9110 13.1.2: `*` matches any current representation; otherwise any listed tag matches by
 * weak comparison (a W/ prefix is ignored on either side).
 */
function ifNoneMatchHits (header: string | undefined, etag: string): boolean {
  if (header === undefined) return false
  if (header.trim() === '*') return true
  const opaque = etag.replace(/^W\//, '')
  for (const match of header.matchAll(/(?:W\/)?("[^"]*")/g)) if (match[1] === opaque) return true
  return false
}

export function sendCacheable (request: FastifyRequest, reply: FastifyReply, body: unknown): FastifyReply {
  const text = JSON.stringify(body)
  const etag = entityTag(text)
  reply.headers({ etag, 'cache-control': 'private, no-cache' })
  if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return reply.code(304).send()
  return reply.code(200).header('content-type', 'application/json; charset=utf-8').send(text)
}
