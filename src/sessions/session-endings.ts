// Every way a session ends goes through here, once: every replica's copy of it is made out of
// date (session-epochs.ts: its next request there reads it again and finds it gone), its open
// pages are told (on every instance, through the live channel's bus) and the ending is counted by
// why. The callers say only which sessions ended, whose, and why; none does any of it on its own.
import type { SessionEndReason } from '../events/live-message.js'

/**
 * Why sessions ended, as counted (media_bff_sessions_ended_total{reason}): the person signed out,
 * the idle or absolute timeout passed, the grant was gone (ended elsewhere, or refused by the
 * service), a new sign-in in the same browser replaced it, the person ended it from another
 * session (one, or all others), an operator ended all of a person's, or a sign-in beyond the
 * person's cap ended the oldest.
 */
export const ENDINGS = {
  signed_out: 'signed_out',
  expired: 'expired',
  grant_gone: 'ended',
  replaced: 'replaced',
  ended_by_person: 'ended',
  other_sessions: 'ended',
  operator: 'ended',
  over_cap: 'ended'
} as const satisfies Record<string, SessionEndReason>

export type Ending = keyof typeof ENDINGS

/** Sessions that ended: how many of them were live, and the handles their open pages know them by. */
export interface EndedSessions {
  live: number
  handles: readonly string[]
  /** Whose sessions they are (SignedIn.budgetKey); none for a session nobody signed in to. */
  whose: ReadonlyArray<string | undefined>
}

export interface SessionEndingsOptions {
  /** Makes every replica's copies of this person's sessions out of date. */
  changed: (budgetKey: string) => Promise<void>
  /** Tells the open pages of these sessions, on every instance, why they ended. */
  announce: (handles: readonly string[], reason: SessionEndReason) => void
  /** Counts sessions that ended, by why. */
  count: (ending: Ending, live: number) => void
}

/** Called once the sessions' records are gone; rejects when the store cannot take the news. */
export type SessionEnded = (ending: Ending, ended: EndedSessions) => Promise<void>

export function sessionEndings ({ changed, announce, count }: SessionEndingsOptions): SessionEnded {
  return async (ending, ended) => {
    if (ended.handles.length > 0) {
      for (const budgetKey of new Set(ended.whose)) if (budgetKey !== undefined) await changed(budgetKey)
    }
    announce(ended.handles, ENDINGS[ending])
    count(ending, ended.live)
  }
}
