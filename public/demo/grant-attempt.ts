// Granting a scope is a round trip through the media service's consent page, which unloads this
// page. What the user had typed is kept in sessionStorage (this tab only, no secrets) so the page
// can restore it and tell, on return, whether the permission came back.

const key = 'media-bff-demo:grant-attempt'

export interface GrantAttempt {
  scopes: string[]
  folderId: string
  title: string
}

export function rememberGrantAttempt (attempt: GrantAttempt): void {
  try {
    window.sessionStorage.setItem(key, JSON.stringify(attempt))
  } catch {
    // Storage can be disabled; the page then just cannot restore the form.
  }
}

/** The attempt started before the round trip, once; undefined when there was none. */
export function takeGrantAttempt (): GrantAttempt | undefined {
  try {
    const stored = window.sessionStorage.getItem(key)
    window.sessionStorage.removeItem(key)
    if (stored === null) return undefined
    const value = JSON.parse(stored) as Partial<GrantAttempt>
    return {
      scopes: Array.isArray(value.scopes) ? value.scopes.filter((scope) => typeof scope === 'string') : [],
      folderId: typeof value.folderId === 'string' ? value.folderId : '0',
      title: typeof value.title === 'string' ? value.title : ''
    }
  } catch {
    return undefined
  }
}
