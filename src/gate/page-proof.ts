// What a page's script shows before media-bff does anything for it (RFC 10017 §6.1.3.3.2): the
// custom header X-CSRF: 1 on every call to the API, reads included, and, when the browser says
// where it comes from, an allowed Origin. A cross-site form or link cannot send a custom header,
// and a cross-site script cannot without a CORS preflight media-bff grants only to
// ALLOWED_ORIGINS; once a static header is the defence, the RFC asks that every request carry it,
// since a read spends the person's token or shows their data as surely as a write changes it.
import type { IncomingHttpHeaders } from 'node:http'
import { AppError } from '../errors.js'

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** Why a page's call is refused (`csrf_failed`), or undefined when it shows what it must. */
export function pageProofRefusal (headers: IncomingHttpHeaders, allowedOrigins: ReadonlySet<string>): AppError | undefined {
  if (headers['x-csrf'] !== '1') {
    return new AppError('csrf_failed', 'This request needs the header X-CSRF: 1: media-bff answers its API only to requests that carry it (the browser module sends it on every call).')
  }
  const { origin } = headers
  return origin !== undefined && !allowedOrigins.has(origin) ? new AppError('csrf_failed', 'This request comes from an origin that may not call media-bff.') : undefined
}

/**
 * Whether a request to no route at all must show a page's proof: when its method may change state,
 * so a route added later cannot be written to without it before it declares anything.
 */
export function unroutedNeedsProof (method: string): boolean {
  return !SAFE_METHODS.has(method)
}
