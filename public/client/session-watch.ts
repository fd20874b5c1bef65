// Tabs that agree on the session. A watcher tells the page when its session changes: it ended
// (signed out here or in another tab, ended from another device or by an operator, timed out),
// scopes were added (a consent in another tab), or it is about to time out. Tabs of one browser
// tell each other at once over a BroadcastChannel; a session ended elsewhere is noticed when the
// tab is looked at again (visibility, focus), on the page's next call, or when its time is up.
import type { MediaBffError } from './errors.js'
import type { Session, SignedInSession } from './types.js'
import { listenerRegistry } from './listeners.js'

/** What a watcher announces, by event name. */
export interface SessionEvents {
  /** The session as now known, after any change. */
  change: { session: Session }
  /**
   * The session is over. `reason`: `signed_out` (a sign-out in this browser: this tab or,
   * with `elsewhere`, another), `expired` (its idle or absolute timeout), `ended` (ended from
   * another device, by an operator, or its grant with the media service ended).
   */
  ended: { reason: 'signed_out' | 'expired' | 'ended', elsewhere: boolean }
  /** New scopes were granted (a consent, here or in another tab). */
  scopes: { added: string[], scopes: string[] }
  /**
   * The session ends at `at` unless used: offer "stay signed in" (staySignedIn). `absolute`:
   * it ends then whatever happens (SESSION_ABSOLUTE_TIMEOUT); say so, a click cannot move it.
   */
  expiring: { at: Date, absolute: boolean }
}

export type SessionListener<K extends keyof SessionEvents> = (event: SessionEvents[K]) => void

export interface SessionWatch {
  /** The session as last known (undefined before the first check). */
  readonly session: Session | undefined
  /** Listens for one kind of change; returns the function that stops listening. */
  on: <K extends keyof SessionEvents>(type: K, listener: SessionListener<K>) => () => void
  /** Asks media-bff now (GET /auth/session, which does not count as activity); announces what changed. */
  check: () => Promise<Session>
  /** "Stay signed in": resets the idle timeout (POST /auth/session/keepalive), never the absolute one. */
  staySignedIn: () => Promise<Session>
  stop: () => void
}

export interface SessionWatchOptions {
  /**
   * How long before the session ends `expiring` is announced; default 2 minutes, or a quarter of
   * the idle time left when the session is first seen, if that is shorter (short idle timeouts).
   */
  warnBeforeMs?: number
  /** Checks on focus or visibility are at least this far apart; default 2 seconds. */
  minCheckIntervalMs?: number
}

const DEFAULT_WARN_BEFORE_MS = 120_000
/**
 * The longest wait setTimeout keeps (2^31 - 1 ms, about 24.8 days): a longer one fires at once,
 * and a session ending further away (a long SESSION_IDLE_TIMEOUT) would be asked about in a loop.
 * A timer cut to this checks once more, harmlessly, and schedules again.
 */
const MAX_TIMER_MS = 2 ** 31 - 1

/** What tabs tell each other. */
type TabMessage = { kind: 'session', session: Session } | { kind: 'signed_out' }

export interface WatchParts {
  channelName: string
  /** media-bff's sign-in route under its root, for a session learned ended without asking it. */
  loginUrl: string
  getSession: () => Promise<Session>
  keepAlive: () => Promise<Session>
  /** Registers for the client's calls that find the sign-in over; returns the unregistering function. */
  onSignInLost: (listener: (error: MediaBffError) => void) => () => void
  /** Registers for this tab's own sign-out (logout); returns the unregistering function. */
  onSignedOut: (listener: () => void) => () => void
}

export function watchSession (parts: WatchParts, { warnBeforeMs, minCheckIntervalMs = 2000 }: SessionWatchOptions = {}): SessionWatch {
  const { on, emit } = listenerRegistry<SessionEvents>()
  const channel = typeof BroadcastChannel === 'undefined' ? undefined : new BroadcastChannel(parts.channelName)
  let session: Session | undefined
  let lastCheck = 0
  let warnTimer: ReturnType<typeof setTimeout> | undefined
  let endTimer: ReturnType<typeof setTimeout> | undefined

  /** Takes in a session (from media-bff or another tab) and announces the difference. */
  const learn = (next: Session, how: { elsewhere: boolean, reason?: SessionEvents['ended']['reason'] }): void => {
    const previous = session
    session = next
    schedule(next)
    if (previous?.authenticated === true && !next.authenticated) {
      const reason = how.reason ?? (Date.now() >= Date.parse(previous.expires_at) ? 'expired' : 'ended')
      emit('ended', { reason, elsewhere: how.elsewhere })
    }
    if (previous?.authenticated === true && next.authenticated) {
      const added = next.scopes.filter((scope) => !previous.scopes.includes(scope))
      if (added.length > 0) emit('scopes', { added, scopes: next.scopes })
    }
    if (previous === undefined || JSON.stringify(previous) !== JSON.stringify(next)) emit('change', { session: next })
  }
  const signedOut = (): Session => ({ authenticated: false, login_url: session?.authenticated === false ? session.login_url : parts.loginUrl })

  /** Learns what media-bff answered; other tabs learn it too, without asking media-bff themselves. */
  const ask = async (how: () => Promise<Session>): Promise<Session> => {
    lastCheck = Date.now()
    const next = await how()
    const changed = JSON.stringify(next) !== JSON.stringify(session)
    learn(next, { elsewhere: true })
    if (changed) channel?.postMessage({ kind: 'session', session: next } satisfies TabMessage)
    return next
  }
  const check = async (): Promise<Session> => await ask(parts.getSession)
  const checkSoon = (): void => {
    if (document.visibilityState !== 'visible' || Date.now() - lastCheck < minCheckIntervalMs) return
    check().catch(() => {})
  }

  /**
   * The expiry notice, and a check when the time is up (another tab may have kept it alive). The
   * notice comes once per end: a session kept alive gets a new end, and a new notice before it.
   */
  let warnBefore = warnBeforeMs
  let announcedEnd: number | undefined
  function schedule (next: Session): void {
    clearTimeout(warnTimer)
    clearTimeout(endTimer)
    if (!next.authenticated) return
    const end = endOf(next)
    // Fixed once, from the first session seen: its idle time left is about the idle timeout.
    warnBefore ??= Math.min(DEFAULT_WARN_BEFORE_MS, Math.max(1000, (Date.parse(next.idle_expires_at) - Date.now()) / 4))
    const untilWarning = end.at - warnBefore - Date.now()
    if (untilWarning <= 0) {
      if (announcedEnd !== end.at) {
        announcedEnd = end.at
        emit('expiring', { at: new Date(end.at), absolute: end.absolute })
      }
    } else {
      warnTimer = setTimeout(() => { check().catch(() => {}) }, Math.min(untilWarning, MAX_TIMER_MS))
    }
    endTimer = setTimeout(() => { check().catch(() => {}) }, Math.min(Math.max(0, end.at - Date.now() + 1000), MAX_TIMER_MS))
  }

  channel?.addEventListener('message', (event: MessageEvent<TabMessage>) => {
    const message = event.data
    if (message.kind === 'signed_out') learn(signedOut(), { elsewhere: true, reason: 'signed_out' })
    else if (message.kind === 'session') learn(message.session, { elsewhere: true })
  })
  // The live channel says why (live-events.ts); an answer to a call does not.
  const offLost = parts.onSignInLost((error) => {
    const reason = error.details.reason === 'signed_out' || error.details.reason === 'expired' || error.details.reason === 'ended' ? error.details.reason : undefined
    if (session?.authenticated !== false) learn(signedOut(), { elsewhere: true, ...(reason === undefined ? {} : { reason }) })
  })
  const offSignedOut = parts.onSignedOut(() => {
    learn(signedOut(), { elsewhere: false, reason: 'signed_out' })
    channel?.postMessage({ kind: 'signed_out' } satisfies TabMessage)
  })
  const inPage = typeof document !== 'undefined' && typeof window !== 'undefined'
  if (inPage) {
    document.addEventListener('visibilitychange', checkSoon)
    window.addEventListener('focus', checkSoon)
  }

  return {
    get session () { return session },
    on,
    check,
    staySignedIn: async () => await ask(parts.keepAlive),
    stop () {
      clearTimeout(warnTimer)
      clearTimeout(endTimer)
      channel?.close()
      offLost()
      offSignedOut()
      if (inPage) {
        document.removeEventListener('visibilitychange', checkSoon)
        window.removeEventListener('focus', checkSoon)
      }
    }
  }
}

/** When a signed-in session ends unless used, and whether that is its absolute end. */
function endOf (session: SignedInSession): { at: number, absolute: boolean } {
  const idle = Date.parse(session.idle_expires_at)
  const absolute = Date.parse(session.absolute_expires_at)
  return absolute <= idle ? { at: absolute, absolute: true } : { at: idle, absolute: false }
}
