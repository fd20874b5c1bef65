// Which of the media service's permissions (scopes) the page may use now, may ask for, or must
// explain as missing, and asking for one before the person starts (before a file is picked, a
// name typed): the session says what this sign-in granted, user/info what the account is
// entitled to. Consent is a round trip through the media service that unloads the page: what was
// asked, with whatever the page wants back (a title typed so far, the action to carry on with),
// waits in this tab's sessionStorage, and returned() tells the page on its return whether it was
// given. A scope asked for and not given is not offered again on this page load (remembered in
// memory only: a reload may offer it once more), so a page never loops through consent.
import { clientError } from './errors.js'
import type { LoginOptions } from './navigation.js'
import type { PopupOutcome } from './popup.js'
import type { CallOptions, MediaUserInfo, Session } from './types.js'

export type Access = 'granted' | 'grantable' | 'denied'

/** The media service's scopes. */
export const SCOPES = ['basic', 'user.info', 'manage', 'upload', 'share'] as const
export type Scope = typeof SCOPES[number]

export interface AccessReport {
  session: Session
  /** For each of the service's scopes: granted now, may be asked for, or not to be had. */
  scopes: Record<Scope, Access>
  /**
   * Whether user/info said what the account may grant. When it cannot be read (the session
   * lacks `user.info`, or the call failed), a scope not granted counts as grantable: worth one ask.
   */
  entitlementsKnown: boolean
}

export interface ConsentReturn<State = unknown> {
  /** What ask() asked for. */
  scopes: string[]
  /**
   * Those still not granted. When the person said no at the consent page (`refused`) they stay
   * `grantable`: the person may change their mind; otherwise the account lacks them (`denied`).
   */
  missing: string[]
  granted: boolean
  /** The person cancelled at the consent page (the sign-in error access_denied came back). */
  refused: boolean
  /** What the page gave ask() to have back. */
  state: State | undefined
}

export interface PopupConsent<State = unknown> extends ConsentReturn<State> {
  /**
   * `granted`: every scope asked for is granted now; `refused`: the person said no; `missing`: the
   * consent ended without some (the account lacks them: `denied` from now on); `closed`: the
   * person closed the popup first; `blocked`: the browser did not open it, and the page went to
   * the consent by navigation (returned() tells on its return), unless `fallback: false`;
   * `failed`: the sign-in ended with another error (the scopes stay grantable).
   */
  outcome: 'granted' | 'refused' | 'missing' | 'closed' | 'blocked' | 'failed'
}

export interface ScopeAccess {
  /** Reads the session and, when it may, what the account could grant; says it for each scope. */
  check: (options?: CallOptions) => Promise<AccessReport>
  /** One scope's access as the last check() found it (denied before any, and when signed out). */
  of: (scope: string) => Access
  /**
   * Leaves for the media service's consent page for `scopes` (added to those granted), coming
   * back to this place (or `returnTo`); `state` (JSON) comes back with returned().
   */
  ask: (scopes: string | readonly string[], options?: { returnTo?: string, state?: unknown }) => void
  /**
   * Asks for `scopes` in a popup, from the person's click: the page never navigates, and keeps
   * whatever it holds (files picked, text typed). Resolves once the person answered or closed it,
   * with the session read again. Call it from the click handler itself, before any await:
   * browsers block a popup opened later. Blocked, it goes on as ask() does, unless `fallback: false`
   * or the page is in a frame (where the consent cannot run but in a popup).
   */
  askInPopup: <State = unknown>(scopes: string | readonly string[], options?: { state?: State, fallback?: boolean }) => Promise<PopupConsent<State>>
  /**
   * For a link of the page's own (`<a href>`) or the `reauthorizeUrl` of an `insufficient_scope`
   * failure: remembers what is about to be asked, as ask() does, for returned().
   */
  remember: (scopes: string | readonly string[], state?: unknown) => void
  /** The consent page for `scopes`, coming back here: the `href` of a page's own link (call remember() when it is followed). */
  consentUrl: (scopes: string | readonly string[], options?: { returnTo?: string }) => string
  /**
   * Once, on the page's return from consent and after check(): what was asked, what is still
   * missing and the state given to ask(); undefined when this page load did not come back from
   * an ask. Give it the sign-in error the return brought (readSignInError), if any: a consent the
   * person cancelled leaves the scopes grantable, any other miss makes them `denied` on this page load.
   */
  returned: <State = unknown>(signInError?: { code: string }) => ConsentReturn<State> | undefined
  /** The account lacks these for good (a `scope_not_granted` failure): `denied` from now on. */
  deny: (scopes: readonly string[]) => void
}

export interface AccessSource {
  getSession: (options?: CallOptions) => Promise<Session>
  userInfo: (options?: CallOptions) => Promise<MediaUserInfo>
  loginUrl: (options?: LoginOptions) => string
  navigate: (url: string) => void
  /** Opens media-bff's sign-in (here: its consent) in a popup now, and resolves with how it ended. */
  inPopup: (options: LoginOptions) => Promise<PopupOutcome>
  /** Whether the page is in a frame, where the consent cannot run but in a popup. */
  inFrame?: () => boolean
  /** Where the asked scopes wait during the round trip: one key per media-bff. */
  storageKey: string
}

/** An ask older than this was abandoned (a sign-in takes 10 minutes at most by default). */
const ASK_LIFETIME_MS = 60 * 60_000

interface Asked { scopes: string[], state?: unknown, at: number }

export function createScopeAccess (source: AccessSource): ScopeAccess {
  const declined = new Set<string>()
  let session: Session | undefined
  let entitled: readonly string[] | undefined

  const of = (scope: string): Access => {
    if (session?.authenticated !== true) return 'denied'
    if (session.scopes.includes(scope)) return 'granted'
    if (declined.has(scope)) return 'denied'
    return entitled === undefined || entitled.includes(scope) ? 'grantable' : 'denied'
  }
  const remember = (scopes: string | readonly string[], state?: unknown): void => {
    const asked: Asked = { scopes: scopeList(scopes), at: Date.now(), ...(state === undefined ? {} : { state }) }
    try {
      window.sessionStorage.setItem(source.storageKey, JSON.stringify(asked))
    } catch {
      // Storage can be off: the page then just cannot carry on after the round trip.
    }
  }
  const consentUrl = (scopes: string | readonly string[], { returnTo }: { returnTo?: string } = {}): string =>
    source.loginUrl({ scope: scopeList(scopes).join(' '), ...(returnTo === undefined ? {} : { returnTo }) })

  const refresh = async (options?: CallOptions): Promise<AccessReport> => {
    const current = await source.getSession(options)
    entitled = current.authenticated && current.scopes.includes('user.info') ? await entitlements(source, options) : undefined
    session = current
    return {
      session: current,
      scopes: Object.fromEntries(SCOPES.map((scope) => [scope, of(scope)])) as Record<Scope, Access>,
      entitlementsKnown: entitled !== undefined
    }
  }

  return {
    check: refresh,
    of,
    ask: (scopes, { returnTo, state } = {}) => {
      remember(scopes, state)
      source.navigate(consentUrl(scopes, returnTo === undefined ? {} : { returnTo }))
    },
    askInPopup: async <State>(scopes: string | readonly string[], { state, fallback = true }: { state?: State, fallback?: boolean } = {}): Promise<PopupConsent<State>> => {
      const asked = scopeList(scopes)
      // In a frame the sign-in begins the frame's session afresh: it asks again for what it has.
      const framed = source.inFrame?.() === true
      const scope = framed && session?.authenticated === true ? [...new Set([...session.scopes.filter((granted) => (SCOPES as readonly string[]).includes(granted)), ...asked])] : asked
      // Opened before anything is awaited: the click's activation lets it through.
      const opened = await source.inPopup({ scope: scope.join(' ') })
      const answer = (outcome: PopupConsent['outcome'], missing: string[]): PopupConsent<State> => ({ outcome, scopes: asked, missing, granted: missing.length === 0, refused: outcome === 'refused', state })
      if (opened.kind === 'blocked') {
        if (fallback && !framed) {
          remember(asked, state)
          source.navigate(consentUrl(asked))
        }
        return answer('blocked', asked)
      }
      // Whatever the popup said (or if it said nothing), the session says what was granted.
      try {
        await refresh()
      } catch {
        // The session cannot be read now: what is known stays.
      }
      const missing = asked.filter((scope) => of(scope) !== 'granted')
      if (missing.length === 0) return answer('granted', missing)
      if (opened.kind === 'error' && opened.code === 'access_denied') return answer('refused', missing)
      if (opened.kind === 'closed') return answer('closed', missing)
      // Not an answer of the account's (the service or the handoff failed): worth asking again.
      if (opened.kind === 'error') return answer('failed', missing)
      // The consent ended, and the account did not give them: not offered again on this page.
      for (const scope of missing) declined.add(scope)
      return answer('missing', missing)
    },
    remember,
    consentUrl,
    returned: <State>(signInError?: { code: string }) => {
      if (session === undefined) throw clientError('Call check() first: returned() compares what was asked with the session.', 'returned')
      const asked = takeAsked(source.storageKey)
      if (asked === undefined) return undefined
      const missing = asked.scopes.filter((scope) => of(scope) !== 'granted')
      const refused = signInError?.code === 'access_denied'
      if (!refused) for (const scope of missing) declined.add(scope)
      return { scopes: asked.scopes, missing, granted: missing.length === 0, refused, state: asked.state as State | undefined }
    },
    deny: (scopes) => { for (const scope of scopes) declined.add(scope) }
  }
}

/** What the account could grant, or undefined when user/info cannot say. */
async function entitlements (source: AccessSource, options?: CallOptions): Promise<string[] | undefined> {
  try {
    const info = await source.userInfo(options)
    return Array.isArray(info.scopes) ? info.scopes.filter((scope) => typeof scope === 'string') : undefined
  } catch {
    return undefined
  }
}

function scopeList (scopes: string | readonly string[]): string[] {
  const list = (typeof scopes === 'string' ? scopes.split(' ') : [...scopes]).filter((scope) => scope !== '')
  if (list.length === 0 || list.some((scope) => !/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(scope))) {
    throw clientError(`scopes must be one or more scope names such as upload (got ${JSON.stringify(scopes)}).`, 'scopes')
  }
  return list
}

/** The ask this tab made before leaving, once; nothing when there was none, or it was abandoned. */
function takeAsked (key: string): Asked | undefined {
  try {
    const stored = window.sessionStorage.getItem(key)
    window.sessionStorage.removeItem(key)
    if (stored === null) return undefined
    const value = JSON.parse(stored) as Partial<Asked>
    if (!Array.isArray(value.scopes) || typeof value.at !== 'number' || Date.now() - value.at > ASK_LIFETIME_MS) return undefined
    return { scopes: value.scopes.filter((scope): scope is string => typeof scope === 'string'), state: value.state, at: value.at }
  } catch {
    return undefined
  }
}
