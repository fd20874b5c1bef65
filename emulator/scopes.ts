// The scopes of media-service.md part A, and those a later version of the service may add
// (EmulatorOptions.laterScopes: a test of a client that must not depend on the list it knows).
// Requests name them space-separated; a grant is always the intersection of what was asked and
// what the user is entitled to.

/** Each scope the service knows, with what its consent page says of it. */
export type ScopeCatalog = ReadonlyMap<string, string>

export const publishedScopes: ScopeCatalog = new Map([
  ['basic', 'read your files and folders'],
  ['user.info', 'read your profile, including your name and e-mail address'],
  ['manage', 'edit and remove your files and folders'],
  ['upload', 'upload files'],
  ['share', 'share your files by e-mail or embedding']
])

/** Splits a scope parameter; duplicates collapse, order follows the catalog, unknown ones last. */
export function parseScopeList (catalog: ScopeCatalog, value: string): string[] {
  const names = new Set(value.split(' ').filter((name) => name !== ''))
  const known = [...catalog.keys()].filter((scope) => names.has(scope))
  const unknown = [...names].filter((name) => !catalog.has(name))
  return [...known, ...unknown]
}

export function intersectScopes (requested: readonly string[], allowed: readonly string[]): string[] {
  return requested.filter((scope) => allowed.includes(scope))
}

export function formatScopes (scopes: readonly string[]): string {
  return scopes.join(' ')
}
