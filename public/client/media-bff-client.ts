/**
 * media-bff browser client: a small, dependency-free ES module for a website's front-end. It
 * talks to media-bff (cookie session) for sign-in state, upload registrations and the media
 * service operations media-bff relays under /api/ (folders, files, sharing), posts files straight
 * to the media service's upload host, and tells the page when its session changes. The page
 * never holds an OAuth token: media-bff keeps them, the browser only has its HttpOnly cookie.
 *
 * media-bff serves this module, built, at `/client/<version>/media-bff-client.js` (with its
 * `.d.ts` beside it), and `npm run pack:client` packs the same as the npm package
 * @media-bff/client (public/client/package/); docs/guide/browser-module.md shows how to use it.
 */
import { clientError, onBff, type MediaBffError } from './errors.js'
import { callBff, withConsent, type CallSettings } from './http.js'
import { inFrame, navigation, tenantName, type PageNavigation } from './navigation.js'
import { callOptions, relayCalls, type RelayCalls } from './relay.js'
import { watchSession, type SessionWatch, type SessionWatchOptions } from './session-watch.js'
import { openLiveChannel, type LiveChannel } from './live-events.js'
import type { CallOptions, FinishResult, Session, SessionListItem, UploadRegistration, UploadRegistrationOptions } from './types.js'
import { uploadFile } from './upload.js'
import { listenerRegistry } from './listeners.js'
import { bffRoot, routeUrl } from './urls.js'
import { createScopeAccess, type ScopeAccess } from './access.js'

export { MediaBffError, type UpstreamFailure } from './errors.js'
export { readSignInError, SignInError, type ReadSignInErrorOptions, type SignInErrorCode } from './sign-in-errors.js'
export { createSessionStore, type SessionSource, type SessionStore } from './session-store.js'
export { safeHttpUrl } from './urls.js'
export { uploadFile } from './upload.js'
export type { ApiMethod, RelayCalls } from './relay.js'
export type { LoginOptions, PageNavigation } from './navigation.js'
export type { SessionEvents, SessionListener, SessionWatch, SessionWatchOptions } from './session-watch.js'
export type { LiveChannel, LiveEvents, LiveListener, SessionEndReason } from './live-events.js'
export { SCOPES, type Access, type AccessReport, type ConsentReturn, type Scope, type ScopeAccess } from './access.js'
export type * from './types.js'

export interface MediaBffClientOptions {
  /**
   * media-bff's address when it is on another origin than this page ('https://media.example.org');
   * '' (the default): this page's origin.
   */
  baseUrl?: string
  /**
   * The path media-bff is mounted under on that origin: its BASE_PATH ('/media-bff'); default none.
   * A `baseUrl` with the path in it ('https://site.example/media-bff') is the same.
   */
  basePath?: string
  /** The media service tenant sign-ins use unless one says otherwise (LoginOptions.tenant). */
  tenant?: string
  /** Deadline of each call to media-bff unless the call says otherwise; default 30 seconds. */
  timeoutMs?: number
  /** How the browser is sent elsewhere (signIn, follow); default `location.assign`. */
  navigate?: (url: string) => void
}

export interface MediaBffClient extends RelayCalls, PageNavigation {
  getSession: (options?: CallOptions) => Promise<Session>
  /** Signs out here; every tab of this browser that watches the session hears of it. */
  logout: (options?: CallOptions) => Promise<void>
  registerUpload: (request: { folderId: number, title?: string, options?: UploadRegistrationOptions }, options?: CallOptions) => Promise<UploadRegistration>
  /**
   * Posts one file straight to the upload host (upload.ts). For a registration the service
   * finishes by itself (autofinish, its default), it then finishes it through media-bff as well:
   * so media-bff learns which files this person stored and tells their pages (processing, then
   * ready). Finishing twice is safe at the service.
   */
  uploadFile: typeof uploadFile
  finishUpload: (registration: Pick<UploadRegistration, 'finish_url'>, options?: CallOptions) => Promise<FinishResult>
  /** The signed-in person's sessions on this deployment: on their other devices too. */
  sessions: {
    /** Most recently active first; `current` marks this browser's. */
    list: (options?: CallOptions) => Promise<SessionListItem[]>
    /** Ends one (its grant too) on every instance; ending this browser's own signs it out. */
    end: (id: string, options?: CallOptions) => Promise<{ ended: number, signed_out: boolean }>
    /** Ends every session but this browser's; resolves to how many were ended. */
    endOthers: (options?: CallOptions) => Promise<number>
  }
  /**
   * Starts watching the session for this tab: its `ended`, `scopes` and `expiring` events
   * (session-watch.ts). Call check() once to learn the session and start the expiry timers.
   */
  watchSession: (options?: SessionWatchOptions) => SessionWatch
  /**
   * Opens this tab's live channel (GET /events): `file` when one of the person's uploads changes
   * at the media service (processing done), `ended` when the session ends, `resync` after a long
   * disconnection; it reconnects by itself until close() or the session's end (live-events.ts).
   */
  liveEvents: () => LiveChannel
  /**
   * Each of the service's scopes as granted, grantable or denied for the signed-in person, and
   * asking for one before they start (before a file is picked), coming back to this page, which
   * returned() then tells whether it was given (access.ts). One per page is enough.
   */
  access: () => ScopeAccess
}

const DEFAULT_TIMEOUT_MS = 30_000

export function createMediaBffClient ({ baseUrl = '', basePath = '', tenant, timeoutMs = DEFAULT_TIMEOUT_MS, navigate = (url) => { location.assign(url) } }: MediaBffClientOptions = {}): MediaBffClient {
  const root = bffRoot(baseUrl, basePath)
  const tabEvents = listenerRegistry<{ signInLost: MediaBffError, signedOut: undefined }>()
  const settings: CallSettings = {
    root,
    timeoutMs,
    onSignInLost: (error) => { tabEvents.emit('signInLost', error) },
    askConsent: async (scopes) => (await consent.askInPopup(scopes)).outcome === 'granted'
  }
  /** Sign-outs of this tab under way. */
  let loggingOut = 0
  /** A signed-out answer's login_url made usable from this page (errors.ts, onBff). */
  const readSession = (session: Session): Session => session.authenticated ? session : { ...session, login_url: onBff(root, session.login_url) ?? routeUrl(root, '/auth/login') }
  const getSession = async (options?: CallOptions): Promise<Session> => readSession(await callBff<Session>(settings, 'GET', '/auth/session', undefined, callOptions(options)))
  const relay = relayCalls(settings)
  const handOff = async (code: string, verifier: string): Promise<boolean> => (await callBff<Session>(settings, 'POST', '/auth/session/handoff', { code, verifier })).authenticated
  const { inPopup, ...pages } = navigation(root, navigate, tenantName(tenant), handOff)
  /** One name per media-bff, for what a tab keeps (the broadcast channel, an ask under way). */
  const bffName = `media-bff ${new URL(root === '' ? '/' : root, typeof location === 'undefined' ? 'https://page.invalid/' : location.href).href}`
  const scopeAccess = (): ScopeAccess => createScopeAccess({ getSession, userInfo: relay.userInfo, loginUrl: pages.loginUrl, navigate, inPopup, inFrame, storageKey: `${bffName} consent` })
  /** What a call with `consent: 'popup'` asks through (CallOptions.consent). */
  const consent = scopeAccess()
  return {
    ...relay,
    ...pages,
    getSession,
    logout: async (options) => {
      loggingOut++
      try {
        await callBff(settings, 'POST', '/auth/logout', undefined, callOptions(options))
      } finally {
        loggingOut--
      }
      tabEvents.emit('signedOut', undefined)
    },
    registerUpload: async ({ folderId, title, options }, call) => await withConsent(settings, call, async () => await callBff<UploadRegistration>(settings, 'POST', '/uploads/register', {
      folder_id: folderId,
      ...(title === undefined || title === '' ? {} : { title }),
      ...(options === undefined ? {} : { options })
    }, callOptions(call))),
    uploadFile: async (registration, file, options) => {
      const result = await uploadFile(registration, file, options)
      const { autofinish, finish_url: finishUrl } = registration as Partial<UploadRegistration>
      if (autofinish !== true || finishUrl === undefined) return result
      try {
        return { ...result, files: (await callBff<FinishResult>(settings, 'POST', { link: finishUrl, field: 'finish_url' }, undefined, callOptions({ signal: options?.signal }))).files }
      } catch {
        // Not the upload's failure: the file is stored (see DirectUploadResult.files).
        return result
      }
    },
    finishUpload: async (registration, options) => await callBff<FinishResult>(settings, 'POST', { link: registration.finish_url, field: 'finish_url' }, undefined, callOptions(options)),
    sessions: {
      list: async (options) => (await callBff<{ sessions: SessionListItem[] }>(settings, 'GET', '/auth/sessions', undefined, callOptions(options))).sessions,
      end: async (id, options) => {
        if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) throw clientError('That is not a session id from sessions.list().', 'id')
        const answer = await callBff<{ ended: number, signed_out: boolean }>(settings, 'DELETE', `/auth/sessions/${id}`, undefined, callOptions(options))
        if (answer.signed_out) tabEvents.emit('signedOut', undefined)
        return answer
      },
      endOthers: async (options) => (await callBff<{ ended: number }>(settings, 'POST', '/auth/sessions/end-others', undefined, callOptions(options))).ended
    },
    // This tab's own sign-out reaches its channel before the answer does: the answer tells it.
    liveEvents: () => openLiveChannel({
      ...settings,
      onSignInLost: (error) => { if (loggingOut === 0 || error.details.reason !== 'signed_out') settings.onSignInLost?.(error) }
    }),
    watchSession: (options) => watchSession({
      // One channel per media-bff: tabs of sites using another one do not hear each other.
      channelName: bffName,
      loginUrl: routeUrl(root, '/auth/login'),
      getSession,
      keepAlive: async () => readSession(await callBff<Session>(settings, 'POST', '/auth/session/keepalive')),
      onSignInLost: (listener) => tabEvents.on('signInLost', listener),
      onSignedOut: (listener) => tabEvents.on('signedOut', listener)
    }, options),
    access: scopeAccess
  }
}
