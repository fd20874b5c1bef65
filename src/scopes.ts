// Scopes of the media service (the service's published interface) and the set arithmetic the flow needs.

export const KNOWN_SCOPES = ['basic', 'user.info', 'manage', 'upload', 'share']

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
