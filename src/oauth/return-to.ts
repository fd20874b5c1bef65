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

function hasUnsafeCharacter (value: string, spaceIsUnsafe: boolean): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i)
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x5c || (spaceIsUnsafe && code === 0x20)) return true
  }
  return false
}

/** The path to return to after sign-in, falling back to "/" for anything unsafe or absent. */
export function safeReturnPath (value: unknown): string {
  return typeof value === 'string' && isSafeReturnPath(value) ? value : '/'
}
