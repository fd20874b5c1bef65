// `return_to` must be a path on this site. Anything a browser could read as another origin
// (//evil, /\evil, a scheme, control characters, encoded variants of those) is refused, so the
// login flow can never become an open redirect.

const MAX_LENGTH = 2048

export function isSafeReturnPath (value: string): boolean {
  if (value.length === 0 || value.length > MAX_LENGTH) return false
  if (!value.startsWith('/')) return false
  // Control characters, spaces and backslashes: browsers strip or rewrite them (\t, \n, \ → /).
  if (hasUnsafeCharacter(value, true)) return false
  if (value.startsWith('//')) return false
  // Decode repeatedly: an encoded "//" or "\" must not slip through a server that decodes later.
  let decoded = value
  for (let i = 0; i < 3; i++) {
    let next: string
    try {
      next = decodeURIComponent(decoded)
    } catch {
      return false
    }
    if (hasUnsafeCharacter(next, false) || next.startsWith('//') || !next.startsWith('/')) return false
    if (next === decoded) break
    decoded = next
  }
  // Resolving against a dummy origin must keep the origin: the final word on "is it local".
  try {
    const base = 'https://return-to.invalid'
    return new URL(value, base).origin === base
  } catch {
    return false
  }
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
 */
export function normaliseReturnPath (value: string): string {
  const url = new URL(value, 'https://return-to.invalid')
  return `${url.pathname}${url.search}${url.hash}`
}

/** The path to return to after sign-in, falling back to "/" for anything unsafe or absent. */
export function safeReturnPath (value: unknown): string {
  return typeof value === 'string' && isSafeReturnPath(value) ? normaliseReturnPath(value) : '/'
}
