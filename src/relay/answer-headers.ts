// The response headers a relayed answer may carry: an allowlist, never a copy. Set-Cookie,
// server banners and anything else the service sends stay upstream.
import type { IncomingHttpHeaders } from 'node:http'

/**
 * Headers for the browser. Answers are private to the signed-in user, and the same URL answers
 * differently after another user signs in on the same browser: a browser may keep a copy but must
 * revalidate it every time, a shared cache never stores one, and the copy is keyed by the cookie
 * too (Vary: Cookie). The only validator is `etag`, the service's bound to this user
 * (validators.ts). Last-Modified is not passed on: the browser would revalidate with
 * If-Modified-Since, which cannot say whose copy it holds; a service that sends only a date has
 * it carried inside the bound ETag instead.
 */
export function answerHeaders (upstream: IncomingHttpHeaders, hasBody: boolean, etag: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {
    'cache-control': /(^|[\s,])no-store([\s,]|$)/i.test(single(upstream['cache-control']) ?? '') ? 'no-store' : 'private, no-cache',
    vary: 'Cookie'
  }
  if (hasBody) headers['content-type'] = 'application/json; charset=utf-8'
  if (etag !== undefined) headers.etag = etag
  return headers
}

export function isJsonContentType (value: string | string[] | undefined): boolean {
  return /^application\/([\w.-]+\+)?json\s*(;|$)/i.test(single(value) ?? '')
}

function single (value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value
}
