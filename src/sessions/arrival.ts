// What a request does to the signed-in session it arrives with, decided in one place: a session
// past a deadline ends (unless the route begins a new one in its place, the sign-in callback); a
// session used by a request that counts as activity moves its idle timeout on, at most once per
// touch interval so a busy session is not written on every call; one whose cookie must be sent
// again (signed with an older secret, or under an earlier name) is touched to send it.
import type { SignedIn } from './signed-in.js'

/** lastSeen is written at most this often; a quarter of the idle timeout when that is shorter. */
export const MAX_TOUCH_INTERVAL_MS = 60_000

export interface Arriving {
  now: number
  idleTimeoutMs: number
  /** The route counts as activity (config.touchesSession is not false). */
  isActivity: boolean
  /** The route begins a new session in place of this one (config.replacesSession). */
  replacesSession: boolean
  /** The cookie must be sent again. */
  cookieToRenew: boolean
}

export type Arrival = 'end' | 'replace' | 'touch' | 'use'

export function arrivalOf (signedIn: SignedIn, { now, idleTimeoutMs, isActivity, replacesSession, cookieToRenew }: Arriving): Arrival {
  if (signedIn.endsAt < now) return replacesSession ? 'replace' : 'end'
  const touchIntervalMs = Math.min(MAX_TOUCH_INTERVAL_MS, idleTimeoutMs / 4)
  return (isActivity && now - signedIn.lastSeen > touchIntervalMs) || cookieToRenew ? 'touch' : 'use'
}
