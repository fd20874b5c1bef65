// The response headers a relayed answer may carry: an allowlist, never a copy. Set-Cookie,
// server banners and anything else the service sends stay upstream.
import type { IncomingHttpHeaders } from 'node:http'

const MAX_ETAG_LENGTH = 256
const ETAG = /^(W\/)?"[\x21\x23-\x7e]*"$/
const MAX_DATE_LENGTH = 64

/**
 * Headers for the browser. The body is rewritten on the way, so a strong ETag becomes weak (the
 * same resource, not the same bytes). Answers are private to the signed-in user, and the same
 * URL answers differently after another user signs in on the same browser: a browser may keep a
 * copy but must revalidate it every time (If-None-Match, which the relay passes on), and a
 * shared cache never stores one.
 */
export function answerHeaders (upstream: IncomingHttpHeaders, hasBody: boolean): Record<string, string> {
  const headers: Record<string, string> = {
    'cache-control': /(^|[\s,])no-store([\s,]|$)/i.test(single(upstream['cache-control']) ?? '') ? 'no-store' : 'private, no-cache'
  }
  if (hasBody) headers['content-type'] = 'application/json; charset=utf-8'
  const etag = single(upstream.etag)
  if (etag !== undefined && etag.length <= MAX_ETAG_LENGTH && ETAG.test(etag)) headers.etag = etag.startsWith('W/') ? etag : `W/${etag}`
  const lastModified = single(upstream['last-modified'])
  if (lastModified !== undefined && lastModified.length <= MAX_DATE_LENGTH && !Number.isNaN(Date.parse(lastModified))) {
    headers['last-modified'] = new Date(lastModified).toUTCString()
  }
  return headers
}

/** Retry-After in seconds, when the service sent a sane one. */
export function retryAfterSeconds (value: string | string[] | undefined): number | undefined {
  const text = single(value)
  if (text === undefined || !/^\d{1,5}$/.test(text.trim())) return undefined
  return Math.min(Number(text), 3600)
}

export function isJsonContentType (value: string | string[] | undefined): boolean {
  return /^application\/([\w.-]+\+)?json\s*(;|$)/i.test(single(value) ?? '')
}

function single (value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value
}
