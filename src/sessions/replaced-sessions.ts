// The session a sign-in began in, found again at its callback. The session cookie is
// SameSite=Strict, so the callback (a navigation the media service starts) arrives without it;
// the sign-in's sealed Lax cookie names the session instead (LoginTransaction.previousSid). That
// session may have been replaced meanwhile by another tab's sign-in in the same browser: each
// replacement is remembered for as long as a sign-in may take (LOGIN_TIMEOUT), and followed, so
// the later callback replaces the session the browser holds now and leaves none behind.
import type { KeyValueStore } from '../store/key-value-store.js'
import { liveUntil, signedInOf, type SessionRecord, type SessionTimeouts, type SignedIn } from './signed-in.js'

/** Sign-ins one browser may have open at once bound the chain (LOGIN_MAX_PER_BROWSER is at most 3). */
const MAX_HOPS = 4
const keyOf = (sid: string): string => `replaced-session:${sid}`

export interface ReplacedSessionsOptions {
  /** Where replacements are remembered (the sign-ins' store family: short-lived, bounded). */
  store: KeyValueStore
  readSession: (sid: string) => Promise<SessionRecord | undefined>
  timeouts: SessionTimeouts
  loginTimeoutMs: number
  now: () => number
}

export function createReplacedSessions ({ store, readSession, timeouts, loginTimeoutMs, now }: ReplacedSessionsOptions) {
  return {
    /** The live signed-in session `sid` names, or the one that replaced it (and so on); a store failure throws. */
    async liveFrom (sid: string | undefined): Promise<SignedIn | undefined> {
      let current = sid
      for (let hop = 0; current !== undefined && hop < MAX_HOPS; hop++) {
        const record = await readSession(current)
        if (record !== undefined) return liveUntil(record, timeouts, now()) === undefined ? undefined : signedInOf(current, record, timeouts)
        current = await store.get(keyOf(current))
      }
      return undefined
    },

    /** Remembers that `replacedSids` were replaced by `sid`, for as long as a sign-in may take. */
    async remember (replacedSids: ReadonlyArray<string | undefined>, sid: string): Promise<void> {
      for (const replaced of new Set(replacedSids)) {
        if (replaced !== undefined && replaced !== sid) await store.set(keyOf(replaced), sid, loginTimeoutMs)
      }
    }
  }
}
