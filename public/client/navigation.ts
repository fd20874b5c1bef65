// Where a page sends the browser when media-bff says the sign-in is missing or a scope is: to
// sign-in or to consent, and back to the very place the person was (path, query and fragment).
import { clientError, MediaBffError } from './errors.js'
import { routeUrl } from './urls.js'
import { openPopup, popupNonce, type PopupOutcome } from './popup.js'

export interface LoginOptions {
  /**
   * Where to come back to: a path on media-bff's origin, or a URL on an origin media-bff lists in
   * ALLOWED_ORIGINS; default this page's place (path, query and fragment).
   */
  returnTo?: string
  /** Scopes to ask for on top of the configured and already granted ones, space-separated. */
  scope?: string
  /**
   * The media service tenant to sign in with (a name of media-bff's MEDIA_TENANTS); default the
   * client's `tenant`, else media-bff's choice: the session's tenant, or MEDIA_DEFAULT_TENANT.
   */
  tenant?: string
}

export interface PopupSignIn {
  /**
   * `signed_in`; `refused`: the person said no; `failed`: the sign-in ended with another error
   * (`error`); `closed`: the person closed the popup; `blocked`: the browser did not open it (the
   * page then goes to sign in, unless `fallback: false`).
   */
  outcome: 'signed_in' | 'refused' | 'failed' | 'closed' | 'blocked'
  /** The sign-in error, when it ended with one (`access_denied`, ...). */
  error?: string
}

export interface PopupSignInOptions extends LoginOptions {
  /**
   * When the browser blocks the popup: go to sign in as signIn() does (true, the default), or only
   * say so. In a frame it only says so: the sign-in cannot run in one.
   */
  fallback?: boolean
}

export interface PageNavigation {
  /** media-bff's sign-in URL: assign it to `location`, it is not a fetch. */
  loginUrl: (options?: LoginOptions) => string
  /** Navigates to sign-in (or to consent, with `scope`), coming back here. */
  signIn: (options?: LoginOptions) => void
  /**
   * Signs in (or, with `scope`, asks for more) in a popup, from the person's click: the page stays
   * as it is, and learns how it ended. Call it from the click handler itself, before any await:
   * browsers block a popup opened later.
   */
  signInInPopup: (options?: PopupSignInOptions) => Promise<PopupSignIn>
  /**
   * Follows what a failure asks of the person: sign in again (`login_required`,
   * `reauth_required`, a risky act's recent sign-in) or grant what is missing
   * (`insufficient_scope`), coming back to this very place. True when it navigated; false for anything else, including `scope_not_granted` (the
   * account lacks the right: show `error.message` instead of asking again).
   */
  follow: (error: unknown, options?: { returnTo?: string }) => boolean
}

/** A tenant's name as media-bff's configuration allows it (src/config/tenants.ts). */
const TENANT_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/i

/** `tenant`, checked before it goes into a URL: a mistake shows at once, not after a redirect. */
export function tenantName (tenant: string | undefined): string | undefined {
  if (tenant !== undefined && !TENANT_NAME.test(tenant)) throw clientError(`tenant must be a tenant's name of letters, digits, _ and - (got ${JSON.stringify(tenant)}).`, 'tenant')
  return tenant
}

/** The page's navigation, and the popup it opens for a sign-in (access.ts asks for consent with it). */
export interface PageNavigationParts extends PageNavigation {
  /** Opens media-bff's sign-in in a popup now (`popup=<nonce>`), and resolves with how it ended. */
  inPopup: (options?: LoginOptions) => Promise<PopupOutcome>
}

/** SHA-256 of a verifier, base64url (what a framed sign-in begins with: `framed=`). */
async function sha256 (verifier: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)))
  return btoa(String.fromCharCode(...digest)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/** Whether this page is shown in a frame (of another site's page, as FRAME_ANCESTORS allows). */
export function inFrame (): boolean {
  try {
    return window.self !== window.top
  } catch {
    return true
  }
}

/**
 * `handOff`: takes a framed page's session into its frame (POST /auth/session/handoff), as its
 * sign-in's popup ends; true when it did.
 */
export function navigation (root: string, navigate: (url: string) => void, defaultTenant?: string, handOff?: (code: string, verifier: string) => Promise<boolean>): PageNavigationParts {
  const here = (): string => {
    if (typeof location === 'undefined') return '/'
    // On media-bff's origin a path; on another one (listed in media-bff's ALLOWED_ORIGINS, as it
    // must be for the page's calls anyway) the whole address.
    const onBffOrigin = root === '' || new URL(root, location.href).origin === location.origin
    return onBffOrigin ? `${location.pathname}${location.search}${location.hash}` : location.href
  }
  const loginUrl = ({ returnTo = here(), scope, tenant = defaultTenant }: LoginOptions = {}): string => {
    const query = new URLSearchParams({ return_to: returnTo })
    if (scope !== undefined) query.set('scope', scope)
    const checkedTenant = tenantName(tenant)
    if (checkedTenant !== undefined) query.set('tenant', checkedTenant)
    return `${routeUrl(root, '/auth/login')}?${query.toString()}`
  }
  const inPopup = (options: LoginOptions = {}): Promise<PopupOutcome> => {
    const nonce = popupNonce()
    const url = new URL(loginUrl(options), location.href)
    url.searchParams.set('popup', nonce)
    const bffOrigin = new URL(routeUrl(root, '/'), location.href).origin
    if (!inFrame()) return openPopup(url.href, { bffOrigin, nonce })
    // In a frame the popup's cookie lands in another partition: the frame takes the session it
    // began, with a code the popup hands it and a verifier only the frame holds.
    // 43 base64url characters: 256 random bits and more.
    const verifier = (popupNonce() + popupNonce()).slice(0, 43)
    const framedUrl = sha256(verifier).then((hash) => {
      url.searchParams.set('framed', hash)
      return url.href
    })
    return openPopup(framedUrl, { bffOrigin, nonce }).then(async (outcome) => {
      if (outcome.kind !== 'signed_in') return outcome
      if (outcome.handoff === undefined || handOff === undefined) return { kind: 'error', code: 'handoff_failed' }
      return await handOff(outcome.handoff, verifier).catch(() => false) ? { kind: 'signed_in' } : { kind: 'error', code: 'handoff_failed' }
    })
  }
  return {
    loginUrl,
    signIn: (options) => { navigate(loginUrl(options)) },
    inPopup,
    signInInPopup: async ({ fallback = true, ...options } = {}) => {
      const opened = await inPopup(options)
      // In a frame a sign-in cannot run (the service's pages refuse to be framed): no fallback there.
      if (opened.kind === 'blocked' && fallback && !inFrame()) navigate(loginUrl(options))
      if (opened.kind === 'error') return { outcome: opened.code === 'access_denied' ? 'refused' : 'failed', error: opened.code }
      return { outcome: opened.kind }
    },
    follow: (error, { returnTo = here() } = {}) => {
      if (!(error instanceof MediaBffError)) return false
      if (error.needsSignIn) {
        navigate(loginUrl({ returnTo }))
        return true
      }
      // media-bff names the scopes to ask for (or a fresh login); the page knows best where to come back to.
      const asked = error.code === 'insufficient_scope' ? error.reauthorizeUrl : error.needsRecentSignIn ? error.loginUrl : undefined
      if (asked !== undefined) {
        const url = new URL(asked, typeof location === 'undefined' ? 'https://page.invalid/' : location.href)
        url.searchParams.set('return_to', returnTo)
        navigate(root === '' ? `${url.pathname}${url.search}` : url.href)
        return true
      }
      return false
    }
  }
}
