// Conditional GETs of the library: every successful GET carries the caller's library validators
// (library-versions.ts): a weak ETag from the library's version, Last-Modified from its last
// change, and `Cache-Control: private, no-cache` (a browser or the BFF may keep the answer but
// must revalidate it). A matching If-None-Match is a 304 without a body; If-Modified-Since counts
// only when the request has no If-None-Match (RFC 9110 13.1.3), so clients that revalidate
// either way can be tested against a real upstream.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { LibraryVersion } from './library-versions.js'

function entityTag (version: LibraryVersion): string {
  return `W/"v${version.version}"`
}

/**
 * RFC 9110 13.1.2: `*` matches any current representation; otherwise any listed tag matches by
 * weak comparison (a W/ prefix is ignored on either side).
 */
function ifNoneMatchHits (header: string, etag: string): boolean {
  if (header.trim() === '*') return true
  const opaque = etag.replace(/^W\//, '')
  for (const match of header.matchAll(/(?:W\/)?("[^"]*")/g)) if (match[1] === opaque) return true
  return false
}

/** RFC 9110 13.1.3: not modified when the last change is no later than the date given. */
function notModifiedSince (header: string | undefined, modifiedMs: number): boolean {
  if (header === undefined) return false
  const since = Date.parse(header)
  return !Number.isNaN(since) && modifiedMs <= since
}

export function sendCacheable (request: FastifyRequest, reply: FastifyReply, body: unknown, version: LibraryVersion): FastifyReply {
  const etag = entityTag(version)
  reply.headers({ etag, 'last-modified': new Date(version.modifiedMs).toUTCString(), 'cache-control': 'private, no-cache' })
  const ifNoneMatch = request.headers['if-none-match']
  const notModified = ifNoneMatch !== undefined ? ifNoneMatchHits(ifNoneMatch, etag) : notModifiedSince(request.headers['if-modified-since'], version.modifiedMs)
  if (notModified) return reply.code(304).send()
  return reply.code(200).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(body))
}
