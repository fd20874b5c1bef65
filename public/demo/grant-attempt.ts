// What the person was about to do when they left to grant a permission: the browser module keeps
// it through the consent round trip (access.remember, access.returned) in this tab's
// sessionStorage, so on return the page can carry on: open the new-folder form, make the share
// link, or restore the upload title. The folder is in the address itself. What comes back from
// storage is read as untrusted, field by field.
import { readId } from './ids.js'

export type GrantAction = 'upload' | 'new-folder' | 'share'

export interface GrantAttempt {
  action: GrantAction
  /** The file a share link was asked for. */
  fileId?: number
  /** The upload title typed so far. */
  title?: string
}

const actions: readonly GrantAction[] = ['upload', 'new-folder', 'share']

/** The attempt as stored, or an upload attempt when it cannot be read. */
export function readGrantAttempt (stored: unknown): GrantAttempt {
  const value = typeof stored === 'object' && stored !== null ? stored as Partial<Record<keyof GrantAttempt, unknown>> : {}
  const action = actions.find((known) => known === value.action) ?? 'upload'
  const fileId = typeof value.fileId === 'number' ? readId(value.fileId) : undefined
  return {
    action,
    ...(fileId === undefined ? {} : { fileId }),
    ...(typeof value.title === 'string' ? { title: value.title } : {})
  }
}
