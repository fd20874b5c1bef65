// Whether a signed-in call may act as its session, beyond its cookie: a session bound to a device
// key (DEVICE_BOUND_SESSIONS) must show the short-lived cookie only that key renews, and a call
// from another device or network than the sign-in was (SESSION_ANOMALY_SIGNALS) is an anomaly,
// which SESSION_ANOMALY says what to do with. The gate (plugins/gate.ts) asks this of every
// page's signed-in call, and answers, records and counts what it says.
import { AppError } from '../errors.js'
import type { AnomalyAction, AnomalySettings, AnomalySignal } from '../config/session.js'
import type { BoundCookieFault } from '../device-binding/bound-cookie.js'
import type { Binding } from '../device-binding/device-binding.js'
import { changedSignals, type Whereabouts } from './anomaly.js'
import type { SignedIn } from './signed-in.js'

export type Vouch =
  | { kind: 'vouched' }
  /** A bound session's call without its cookie (or with one that does not hold): not this session's. */
  | { kind: 'unbound', fault: BoundCookieFault }
  | { kind: 'anomaly', changed: AnomalySignal[], action: AnomalyAction, now: Whereabouts }

export interface VouchParts {
  /** undefined: device binding is off (a binding made while it was on is not asked for). */
  boundCookieFault: ((binding: Binding) => BoundCookieFault | undefined) | undefined
  /** Where the call comes from, worked out only when a signal is looked at. */
  whereabouts: () => Whereabouts
  anomaly: AnomalySettings
}

export function vouchFor (signedIn: SignedIn, { boundCookieFault, whereabouts, anomaly }: VouchParts): Vouch {
  const { binding, signedInFrom } = signedIn
  if (binding !== undefined && boundCookieFault !== undefined) {
    const fault = boundCookieFault(binding)
    if (fault !== undefined) return { kind: 'unbound', fault }
  }
  if (signedInFrom === undefined || anomaly.signals.length === 0) return { kind: 'vouched' }
  const now = whereabouts()
  const changed = changedSignals(signedInFrom, now, anomaly.signals)
  return changed.length === 0 ? { kind: 'vouched' } : { kind: 'anomaly', changed, action: anomaly.action, now }
}

/** SESSION_ANOMALY=reauth: the signed-in call is refused until the person signs in afresh from here. */
export function anomalyRefusal (signInAgain: string): AppError {
  return new AppError('reauth_required', 'This session is being used from another device or network than it signed in from: please sign in again.', {
    status: 403,
    details: { reason: 'session_anomaly', login_url: signInAgain }
  })
}
