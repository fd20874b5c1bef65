// The scopes of media-service.md part A. Requests name them space-separated; a grant is always
// the intersection of what was asked and what the user is entitled to.

export const knownScopes = ['basic', 'user.info', 'manage', 'upload', 'share'] as const

export type Scope = typeof knownScopes[number]

export const scopeDescriptions: Record<Scope, string> = {
  basic: 'read your files and folders',
  'user.info': 'read your profile, including your name and e-mail address',
  manage: 'edit and remove your files and folders',
  upload: 'upload files',
  share: 'share your files by e-mail or embedding'
}

export function isKnownScope (value: string): value is Scope {
  return (knownScopes as readonly string[]).includes(value)
}

/** Splits a scope parameter; duplicates collapse, order follows knownScopes. */
export function parseScopeList (value: string): string[] {
  const names = new Set(value.split(' ').filter((name) => name !== ''))
  const known = knownScopes.filter((scope) => names.has(scope))
  const unknown = [...names].filter((name) => !isKnownScope(name))
  return [...known, ...unknown]
}

export function intersectScopes (requested: readonly string[], allowed: readonly string[]): string[] {
  return requested.filter((scope) => allowed.includes(scope))
}

export function formatScopes (scopes: readonly string[]): string {
  return scopes.join(' ')
}
