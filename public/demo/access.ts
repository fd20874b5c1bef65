// Which of the media service's permissions (scopes) the page may use now, may ask for, or must
// explain as missing. The session says what this sign-in granted; user/info says what the
// account is entitled to. The page offers consent only for what the account could grant, before
// the person starts (no files chosen twice, no name typed twice), and never loops: a scope asked
// for and not given is not offered again on this page load (it is remembered in memory only, so
// a reload may offer it once more).

export type Access = 'granted' | 'grantable' | 'denied'

export interface AccessState {
  granted: readonly string[]
  /** undefined when user/info could not be read: then each scope is worth asking for once. */
  entitled: readonly string[] | undefined
  /** Asked for and not given, as far as this page load knows. */
  declined: ReadonlySet<string>
}

export function accessTo (scope: string, state: AccessState): Access {
  if (state.granted.includes(scope)) return 'granted'
  if (state.declined.has(scope)) return 'denied'
  return state.entitled === undefined || state.entitled.includes(scope) ? 'grantable' : 'denied'
}

const missingRight: Record<string, string> = {
  upload: 'has no upload rights in the media service, so it cannot allow this site to upload',
  manage: 'has no right to create or change folders in the media service',
  share: 'has no right to share files in the media service'
}

/** Why a scope cannot be had, as a sentence naming the account. */
export function missingRightText (scopes: readonly string[], account: string | undefined): string {
  const who = account === undefined || account === '' ? 'This account' : `This account (${account})`
  const scope = scopes[0]
  const what = scope === undefined ? 'lacks a right in the media service that this needs' : missingRight[scope] ?? `lacks the media service right "${scope}"`
  return `${who} ${what}. Ask an administrator of the media service for this right, or sign in with another account.`
}
