// What goes into a URL, checked before anything is sent, and what comes out of one before a page
// uses it.
import { clientError } from './errors.js'
import type { MediaId } from './types.js'

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
