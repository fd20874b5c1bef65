// Every way a session ends goes through here, once: every replica's copy of it is made out of
// date (session-epochs.ts: its next request there reads it again and finds it gone), its open
// pages are told (on every instance, through the live channel's bus) and the ending is counted by
// why. The callers say only which sessions ended, whose, and why; none does any of it on its own.
//
// Telling the replicas cannot fail the ending: the records are gone already. A person's epoch that
// cannot be dropped now (the store away for a moment) is tried again in the background until
// every replica would have read its copy again anyway (MAX_AGE_MS).
import type { SessionEndReason } from '../contract/live-events.js'
import { MAX_AGE_MS } from './session-core.js'

/**
 * Why sessions ended, as counted (media_bff_sessions_ended_total{reason}), and what their pages
 * are told of it (the live `session` event's `reason`): the person signed out, the idle or absolute
 * timeout passed, the grant was gone (ended elsewhere, or refused by the service), a new sign-in
 * in the same browser replaced it, the person ended it from another session (one, or all others),
 * an operator ended all of a person's, a sign-in beyond the person's cap ended the oldest, or a
 * call came from another device or network than the sign-in with SESSION_ANOMALY=end.
 */
export const ENDINGS = {
  signed_out: 'signed_out',
  expired: 'expired',
  grant_gone: 'ended',
  replaced: 'replaced',
  ended_by_person: 'ended',
  other_sessions: 'ended',
  operator: 'ended',
  over_cap: 'ended',
  anomaly: 'ended'
} as const satisfies Record<string, SessionEndReason>

export type Ending = keyof typeof ENDINGS

/** Sessions that ended: how many of them were live, and the handles their open pages know them by. */
export interface EndedSessions {
  live: number
  handles: readonly string[]
  /** Whose sessions they are (SignedIn.budgetKey); none for a session nobody signed in to. */
  whose: ReadonlyArray<string | undefined>
  /** The ending failed part-way: it may have ended sessions it cannot name, so the replicas are told anyway. */
  partly?: boolean
}

export interface SessionEndingsOptions {
  /** Makes every replica's copies of this person's sessions out of date. */
  changed: (budgetKey: string) => Promise<void>
  /** Tells the open pages of these sessions, on every instance, why they ended. */
  announce: (handles: readonly string[], reason: SessionEndReason) => void
  /** Counts (and records) sessions that ended, by why. */
  count: (ending: Ending, ended: EndedSessions) => void
  /** A monotonic clock in milliseconds, and timers, for the retries (tests give their own). */
  now?: () => number
  later?: (run: () => void, ms: number) => void
}

/** Called once the sessions' records are gone (or may be); never rejects. */
export type SessionEnded = (ending: Ending, ended: EndedSessions) => Promise<void>

export function sessionEndings ({ changed, announce, count, now = () => performance.now(), later = unrefTimeout }: SessionEndingsOptions): SessionEnded {
  /** Drops the epoch now, and again after a failure, until every copy has aged out anyway. */
  const dropEpoch = async (budgetKey: string, since = now(), attempt = 0): Promise<void> => {
    try {
      await changed(budgetKey)
    } catch {
      const waitMs = Math.min(1_000, 100 * 2 ** attempt)
      if (now() + waitMs - since < MAX_AGE_MS) later(() => { dropEpoch(budgetKey, since, attempt + 1).catch(() => {}) }, waitMs)
    }
  }
  return async (ending, ended) => {
    if (ended.handles.length > 0 || ended.partly === true) {
      await Promise.all([...new Set(ended.whose)].map(async (budgetKey) => { if (budgetKey !== undefined) await dropEpoch(budgetKey) }))
    }
    announce(ended.handles, ENDINGS[ending])
    count(ending, ended)
  }
}

function unrefTimeout (run: () => void, ms: number): void {
  setTimeout(run, ms).unref()
}
