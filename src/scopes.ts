// Scopes as the flow handles them: read from what the service and the configuration say, and
// the set arithmetic the flow needs. Which scopes media-bff asks for is one list, OAUTH_SCOPES and
// every scope a route declares (app.requestableScopes, plugins/gate.ts); nothing here filters by
// name, so a scope the service grants is kept whether or not this version has heard of it.

/** An OAuth scope token (RFC 6749 §3.3): printable ASCII but space, `"` and `\`; bounded here. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]{1,64}$/
/** Scopes one answer may hold at most: the service's answers are input like any other. */
export const MAX_SCOPES = 32

export function isScopeToken (value: unknown): value is string {
  return typeof value === 'string' && SCOPE_TOKEN.test(value)
}

/** The well-formed scopes of what the service said (a token answer, user/info), at most MAX_SCOPES. */
export function scopesFrom (listed: readonly unknown[]): string[] {
  return [...new Set(listed.filter(isScopeToken))].slice(0, MAX_SCOPES)
}

/** Splits a space- or comma-separated scope string into unique scopes, in order. */
export function parseScopes (value: string | undefined | null): string[] {
  if (value === undefined || value === null) return []
  return [...new Set(value.split(/[\s,]+/).filter((scope) => scope !== ''))]
}

export function unionScopes (...lists: Array<readonly string[]>): string[] {
  return [...new Set(lists.flat())]
}

export function missingScopes (granted: readonly string[], required: readonly string[]): string[] {
  return required.filter((scope) => !granted.includes(scope))
}
