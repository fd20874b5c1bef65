// Granting a scope is a round trip through the media service's consent page, which unloads this
// page. What the person was about to do is kept in sessionStorage (this tab only, no secrets), so
// on return the page can tell whether the permission came back and carry on: open the new-folder
// form, make the share link, or restore the upload title. The folder is in the address itself.
import { readId } from './ids.js'

const key = 'media-bff-demo:grant-attempt'

export type GrantAction = 'upload' | 'new-folder' | 'share'

export interface GrantAttempt {
  scopes: string[]
  action: GrantAction
  /** The file a share link was asked for. */
  fileId?: number
  /** The upload title typed so far. */
  title?: string
}

const actions: readonly GrantAction[] = ['upload', 'new-folder', 'share']

export function rememberGrantAttempt (attempt: GrantAttempt): void {
  try {
    window.sessionStorage.setItem(key, JSON.stringify(attempt))
  } catch {
    // Storage can be disabled; the page then just cannot carry on after the round trip.
  }
}

/** The attempt started before the round trip, once; undefined when there was none. */
export function takeGrantAttempt (): GrantAttempt | undefined {
  try {
    const stored = window.sessionStorage.getItem(key)
    window.sessionStorage.removeItem(key)
    if (stored === null) return undefined
    const value = JSON.parse(stored) as Partial<GrantAttempt>
    const action = actions.find((known) => known === value.action) ?? 'upload'
    const fileId = typeof value.fileId === 'number' ? readId(value.fileId) : undefined
    return {
      scopes: Array.isArray(value.scopes) ? value.scopes.filter((scope) => typeof scope === 'string') : [],
      action,
      ...(fileId === undefined ? {} : { fileId }),
      ...(typeof value.title === 'string' ? { title: value.title } : {})
    }
  } catch {
    return undefined
  }
}
