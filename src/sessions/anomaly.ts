// Anomaly signals (SESSION_ANOMALY): a signed-in call compared with its sign-in, by the device its
// User-Agent names (src/sessions/device.ts) and its coarse network (src/sessions/network.ts). Both
// are the client's to say, so a change is a signal, never proof: logged by default, acted on only
// where a deployment chooses to (a fresh sign-in, or the session's end).
import type { AnomalySignal } from '../config/session.js'

export interface Whereabouts {
  device: string
  network: string
}

/** The signals, of those looked at, that differ from the sign-in's; empty when none does. */
export function changedSignals (signedInFrom: Whereabouts, now: Whereabouts, signals: readonly AnomalySignal[]): AnomalySignal[] {
  return signals.filter((signal) => signedInFrom[signal] !== now[signal])
}
