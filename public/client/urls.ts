// What goes into a URL, checked before anything is sent, and what comes out of one before a page
// uses it.
import { clientError, onBff, originOf } from './errors.js'
import type { MediaId } from './types.js'

/**
 * media-bff's root, under which every route is called: `baseUrl` (its address: '' for this page's
 * origin, an http(s) URL, which may carry a path, or a path on this page's origin) and `basePath`
 * (the path media-bff is mounted under there, its BASE_PATH) joined, with empty segments dropped
 * and no trailing slash: '', '/media-bff', 'https://media.example.org',
 * 'https://site.example/media-bff'. A route ('/auth/session') is then appended as it is: exactly
 * one slash between them.
 */
export function bffRoot (baseUrl: string, basePath: string): string {
  const onThisOrigin = baseUrl === '' || (baseUrl.startsWith('/') && !/^\/[/\\]/.test(baseUrl))
  const address = onThisOrigin ? { origin: '', pathname: baseUrl } : parseAddress(baseUrl)
  return `${address.origin}${mountPath(address.pathname, 'baseUrl')}${mountPath(basePath, 'basePath')}`
}

/** A route of media-bff ('/auth/session', always with its leading slash) under its root. */
export function routeUrl (root: string, route: string): string {
  return `${root}${route}`
}

/**
 * A link media-bff handed out to be called (a registration's finish_url), as the URL to call: a
 * path on media-bff's origin (it carries BASE_PATH already) or a URL on that origin; nothing else,
 * as the call carries the session cookie and X-CSRF.
 */
export function linkOnBff (root: string, link: string, field: string): string {
  const url = onBff(root, link)
  const origin = originOf(root) || (typeof location === 'undefined' ? '' : location.origin)
  if (url === undefined || (!url.startsWith('/') && new URL(url).origin !== origin)) {
    throw clientError(`${field} must be a link on media-bff, as media-bff handed it out (got ${JSON.stringify(link)}).`, field)
  }
  return url
}

function parseAddress (baseUrl: string): URL {
  const problem = `baseUrl must be media-bff's http(s) address, such as https://media.example.org, or a path on this page's origin, without a query or fragment (got ${JSON.stringify(baseUrl)}).`
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    throw clientError(problem, 'baseUrl')
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username !== '' || url.password !== '' || /[?#]/.test(baseUrl)) throw clientError(problem, 'baseUrl')
  return url
}

/** A mount path as '/a/b' ('' for none), whatever slashes it was written with; no tricks. */
function mountPath (path: string, field: string): string {
  const segments = path.split('/').filter((segment) => segment !== '')
  if (/[\\?#\s\p{Cc}]|%2e|%2f|%5c/iu.test(path) || segments.some((segment) => segment === '.' || segment === '..')) {
    throw clientError(`${field}'s path must be path segments such as /media-bff, without ., .., \\, ?, # or spaces (got ${JSON.stringify(path)}).`, field)
  }
  return segments.map((segment) => `/${segment}`).join('')
}

/**
 * The absolute http(s) URL `value` holds, or undefined. Check every URL from an answer with it
 * before it goes into an href, a src or location: a `javascript:` or `data:` link would run in
 * this page.
 */
export function safeHttpUrl (value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 4096) return undefined
  try {
    const url = new URL(value)
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined
  } catch {
    return undefined
  }
}

/** The largest id media-bff's relay takes: 15 digits (its ID_PATTERN, `^\d{1,15}$`). */
const MAX_ID = 999_999_999_999_999

/** An id as a path segment: a whole number from 0 to MAX_ID, or the call fails before it is sent. */
export function idSegment (id: MediaId, field = 'id'): string {
  const value = typeof id === 'string' && /^\d{1,15}$/.test(id) ? Number(id) : id
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > MAX_ID) {
    throw clientError(`${field} must be a whole number, 0 or more (got ${JSON.stringify(id)}).`, field)
  }
  return String(value)
}

/** `path` relative to /api/, without tricks that would make it another path on media-bff. */
export function apiPath (path: string): string {
  const relative = path.replace(/^\/+/, '')
  const route = relative.split('?', 1)[0] ?? ''
  const segments = route.split('/')
  if (route === '' || /[\\#]|%2e|%2f|%5c/i.test(route) || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw clientError(`"${path}" is not an operation path under /api/ (e.g. "folders/0/contents").`, 'path')
  }
  return relative
}

/** A share link's expiry as the service takes it: Unix seconds, or the date as given. */
export function expiry (value: Date | number | string): number | string {
  if (!(value instanceof Date)) return value
  const seconds = Math.floor(value.getTime() / 1000)
  if (!Number.isFinite(seconds)) throw clientError('The expiry date is not a valid date.', 'expires')
  return seconds
}
