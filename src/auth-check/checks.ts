// What GET /auth/check answers a reverse proxy's sub-request: who is signed in with the browser's
// session, whether their grant holds the scopes asked for, and an assertion to pass on. A page's
// assets each cause a sub-request, so the answer for a session is kept for a few seconds
// (AUTH_CHECK_CACHE): within it a check reads nothing from the store, and checks that arrive
// together share one read. A check reads the session and never writes, touches or ends it.
import { checkScopes, type ScopeVerdict } from '../oauth/scope-check.js'
import type { Assertion, SignAssertion, Subject } from './assertions.js'
import type { Binding } from '../device-binding/device-binding.js'

/** A signed-in session as a check needs it (plugins/session.ts reads it through the session face). */
export interface Reading {
  subject: Subject
  /** Scopes a re-authorization already came back without. */
  deniedScopes: readonly string[]
  /** When the session ends unless it is used before, epoch milliseconds. */
  endsAt: number
  /** The key the session is bound to (DEVICE_BOUND_SESSIONS): the check's cookie must show it. */
  binding?: Binding | undefined
}

export type CheckAnswer =
  | { kind: 'signed_in', subject: Subject, assertion: Assertion | undefined }
  | { kind: 'signed_out' }
  /** A bound session, and the browser's call shows no short-lived cookie that holds for it. */
  | { kind: 'unbound', reading: Reading }
  | { kind: 'scope_missing', verdict: Exclude<ScopeVerdict, { ok: true }> }

export interface ChecksOptions {
  /** The live signed-in session `sid` names, with its grant's scopes; undefined when there is none. */
  read: (sid: string) => Promise<Reading | undefined>
  /** Undefined: no assertions (ASSERTION_KEYS=none). */
  sign: SignAssertion | undefined
  /** How long a session's answer is kept (0: every check reads the store). */
  keepMs: number
  /** Epoch milliseconds. */
  now: () => number
  maxEntries?: number
}

interface Kept {
  reading: Reading
  assertion: Assertion | undefined
  /** When the assertion was signed: past half its life, the next check signs another. */
  signedAt: number
}

/** Sessions whose answer is kept; beyond it the oldest goes. */
const MAX_ENTRIES = 10_000

export function createChecks ({ read, sign, keepMs, now, maxEntries = MAX_ENTRIES }: ChecksOptions) {
  // In the order they were read; a pending read is kept until it settles, so checks that arrive
  // together wait for the one read.
  const kept = new Map<string, { until: number, entry: Promise<Kept | undefined> }>()

  const signed = async (reading: Reading, at: number): Promise<Kept> => ({
    reading,
    assertion: sign === undefined ? undefined : await sign(reading.subject, at, reading.endsAt),
    signedAt: at
  })

  const fresh = (sid: string, at: number): Promise<Kept | undefined> => {
    const entry = read(sid).then(async (reading) => reading === undefined ? undefined : await signed(reading, at))
    if (keepMs <= 0) return entry
    if (kept.size >= maxEntries) {
      const oldest = kept.keys().next().value
      if (oldest !== undefined) kept.delete(oldest)
    }
    const slot = { until: Number.POSITIVE_INFINITY, entry }
    kept.set(sid, slot)
    entry.then((settled) => {
      if (kept.get(sid) !== slot) return
      if (settled === undefined) kept.delete(sid)
      else slot.until = Math.min(at + keepMs, settled.reading.endsAt)
    }, () => { if (kept.get(sid) === slot) kept.delete(sid) })
    return entry
  }

  const entryOf = async (sid: string, at: number): Promise<Kept | undefined> => {
    const slot = kept.get(sid)
    if (slot !== undefined && at < slot.until) {
      const entry = await slot.entry
      const assertion = entry?.assertion
      // An assertion handed out must hold for a while: past half its life, another is signed.
      if (entry !== undefined && assertion !== undefined && at - entry.signedAt > (assertion.expiresAt - entry.signedAt) / 2) {
        const renewed = await signed(entry.reading, at)
        Object.assign(entry, renewed)
      }
      return entry
    }
    if (slot !== undefined) kept.delete(sid)
    return await fresh(sid, at)
  }

  return {
    /**
     * The answer for the session `sid` names (undefined: no valid cookie) and the scopes asked for;
     * `shows`: whether the call shows a bound session's short-lived cookie (kept answers are the
     * session's, and every call shows its own); none shows one unless said.
     */
    check: async (sid: string | undefined, required: readonly string[], shows: (binding: Binding) => boolean = () => false): Promise<CheckAnswer> => {
      if (sid === undefined) return { kind: 'signed_out' }
      const at = now()
      const entry = await entryOf(sid, at)
      if (entry === undefined || entry.reading.endsAt < at) return { kind: 'signed_out' }
      const { binding } = entry.reading
      if (binding !== undefined && !shows(binding)) return { kind: 'unbound', reading: entry.reading }
      const verdict = checkScopes(entry.reading.subject.scopes, required, entry.reading.deniedScopes)
      if (!verdict.ok) return { kind: 'scope_missing', verdict }
      return { kind: 'signed_in', subject: entry.reading.subject, assertion: entry.assertion }
    },
    /** Sessions whose answer is kept (for tests and the bench). */
    get size () { return kept.size }
  }
}

export type Checks = ReturnType<typeof createChecks>
