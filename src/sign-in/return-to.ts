// `return_to` must be a path on this site, or a URL on one of the website origins media-bff serves
// (ALLOWED_ORIGINS, exactly). Anything a browser could read as another origin (//evil, /\evil, a
// scheme, control characters, encoded variants of those) is refused, so the login flow can never
// become an open redirect.

/**
 * Longest return path or URL, raw and once normalised: it is carried in every login transaction,
 * whose cookie must fit its slot (src/sign-in/login-transactions.ts, SLOT_BYTES).
 */
export const MAX_LENGTH = 512

const BASE = 'https://return-to.invalid'

/**
 * The path to put in Location for `value`, or undefined when `value` is not a safe local path.
 * Checked twice: on the raw value (what a server decoding later would see) and on the normalised
 * result (what the browser will resolve), because the URL parser's own normalisation (dot
 * segments, percent-encoding) can turn an innocent-looking path into `//other-host`.
 */
export function parseReturnPath (value: string): string | undefined {
  if (value.length === 0 || value.length > MAX_LENGTH) return undefined
  if (!isLocalPath(value, true)) return undefined
  // Dot segments in any encoding are refused outright: nothing legitimate needs them, and they
  // are what makes normalisation move a path somewhere the raw check never looked.
  if (hasDotSegment(value)) return undefined
  let url: URL
  try {
    url = new URL(value, BASE)
  } catch {
    return undefined
  }
  if (url.origin !== BASE) return undefined
  const normalised = `${url.pathname}${url.search}${url.hash}`
  return isLocalPath(normalised, true) && new URL(normalised, BASE).origin === BASE ? normalised : undefined
}

/** A path that starts with one slash and stays one after up to three rounds of decoding. */
function isLocalPath (value: string, raw: boolean): boolean {
  if (!value.startsWith('/') || value.startsWith('//')) return false
  // Control characters, spaces and backslashes: browsers strip or rewrite them (\t, \n, \ → /).
  if (hasUnsafeCharacter(value, raw)) return false
  // Decode repeatedly: an encoded "//" or "\" must not slip through a server that decodes later.
  let decoded = value
  for (let i = 0; i < 3; i++) {
    const next = tryDecode(decoded)
    if (next === undefined || hasUnsafeCharacter(next, false) || next.startsWith('//') || !next.startsWith('/')) return false
    if (next === decoded) break
    decoded = next
  }
  return true
}

/** True when a segment of the path part is `.` or `..`, however it is percent-encoded. */
function hasDotSegment (value: string): boolean {
  const path = value.split(/[?#]/, 1)[0] ?? ''
  return path.split('/').some((segment) => {
    let decoded = segment
    for (let i = 0; i < 3; i++) {
      const next = tryDecode(decoded)
      if (next === undefined) return true
      // A decoded slash splits the segment further: check every piece.
      if (next.split(/[/\\]/).some((piece) => piece === '.' || piece === '..')) return true
      if (next === decoded) break
      decoded = next
    }
    return false
  })
}

function tryDecode (value: string): string | undefined {
  try {
    return decodeURIComponent(value)
  } catch {
    return undefined
  }
}

/**
 * Where a sign-in may come back to: a local path (parseReturnPath), or an absolute URL whose
 * origin is exactly one of `siteOrigins` (a website on another origin that uses media-bff), with
 * the rest of it checked as a local path. Undefined otherwise.
 */
export function parseReturnTarget (value: string, siteOrigins: ReadonlySet<string>): string | undefined {
  if (value.startsWith('/')) return parseReturnPath(value)
  if (value.length > MAX_LENGTH) return undefined
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return undefined
  }
  // The raw text must spell the origin exactly as listed: nothing the URL parser would forgive
  // (case, a default port, whitespace, backslashes) stands between the two.
  if (!siteOrigins.has(url.origin) || !value.startsWith(url.origin)) return undefined
  const path = parseReturnPath(value.slice(url.origin.length) === '' ? '/' : value.slice(url.origin.length))
  return path === undefined ? undefined : `${url.origin}${path}`
}

export function isSafeReturnPath (value: string): boolean {
  return parseReturnPath(value) !== undefined
}

/** Bidirectional-text controls: they make a path read differently from what it is. */
const BIDI_CONTROLS = new Set([0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069])

function hasUnsafeCharacter (value: string, spaceIsUnsafe: boolean): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i)
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x5c || (spaceIsUnsafe && code === 0x20) || BIDI_CONTROLS.has(code)) return true
  }
  return false
}

/**
 * The safe path as it goes into a Location header: percent-encoded by the URL parser, so a
 * non-ASCII character can neither break the header (Node refuses such headers) nor go out raw.
 * "/" for anything unsafe.
 */
export function normaliseReturnPath (value: string): string {
  return parseReturnPath(value) ?? '/'
}

/** The path to return to after sign-in, falling back to "/" for anything unsafe or absent. */
export function safeReturnPath (value: unknown): string {
  return typeof value === 'string' ? normaliseReturnPath(value) : '/'
}
