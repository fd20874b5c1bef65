// Every way a session ends goes through here, once: its open pages are told (on every instance,
// through the live channel's bus) and the ending is counted by why. The callers say only which
// sessions ended and why; none announces or counts on its own.
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
}

export interface SessionEndingsOptions {
  /** Tells the open pages of these sessions, on every instance, why they ended. */
  announce: (handles: readonly string[], reason: SessionEndReason) => void
  /** Counts sessions that ended, by why. */
  count: (ending: Ending, live: number) => void
}

export type SessionEnded = (ending: Ending, ended: EndedSessions) => void

export function sessionEndings ({ announce, count }: SessionEndingsOptions): SessionEnded {
  return (ending, ended) => {
    announce(ended.handles, ENDINGS[ending])
    count(ending, ended.live)
  }
}
