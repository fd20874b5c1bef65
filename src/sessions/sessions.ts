// The session, one face: everything a session goes through, from the request that opens it to
// every way it ends, composed here over the stores and the grants (no Fastify). The cookie
// layer (plugins/session.ts, @fastify/session) rotates ids and saves what changed through
// restore, save and drop; the gate (plugins/gate.ts) opens a request's session with its count and
// decides what its arrival does; routes begin, end, list and end a person's sessions with one call
// each, and an ending finishes itself: announced, counted, every replica told.
import type { KeyValueStore } from '../store/key-value-store.js'
import type { TokenCipher } from '../store/token-cipher.js'
import { createSessionStore } from '../store/session-store.js'
import { createSessionCore, type GrantAsRead, type OpenedSession } from './session-core.js'
import type { CountAgainst, SessionEpochs } from './session-epochs.js'
import type { SessionEndReason } from '../contract/live-events.js'
import { sessionEndings, type EndedSessions, type Ending } from './session-endings.js'
import { createSessionIndex, type Person } from './session-index.js'
import { createPersonSessions, type Ended, type LiveSession } from './person-sessions.js'
import { beginSession, type Beginning, type HeldSession, type NewSession } from './begin-session.js'
import { endSession } from './end-session.js'
import { arrivalOf, type Arrival, type Arriving } from './arrival.js'
import { createReplacedSessions } from './replaced-sessions.js'
import { budgetKeyOf, recordLifetimeMs, signedInOf, type SessionRecord, type SessionTimeouts, type SignedIn, type StoredSession } from './signed-in.js'

/** Sessions one person may hold at once; a sign-in beyond it ends their oldest. */
export const MAX_SESSIONS_PER_PERSON = 50

export interface SessionsOptions<G extends GrantAsRead> {
  /** Sessions and each person's index of them (never pushed out by bookkeeping). */
  people: KeyValueStore
  /** The sign-ins' family: short-lived, bounded; where replacements are remembered. */
  signIns: KeyValueStore
  epochs: SessionEpochs
  /** Seals session records (they hold the grant id and the person's name and e-mail). */
  cipher: TokenCipher
  grants: { read: (grantId: string) => Promise<G | undefined>, delete: (grantId: string) => Promise<void> }
  settings: SessionTimeouts & { loginTimeoutMs: number }
  maxPerPerson?: number
  /** Epoch milliseconds: the clock sessions end by. */
  now: () => number
  /** Tells the open pages of these sessions, on every instance, why they ended. */
  announce: (handles: readonly string[], reason: SessionEndReason) => void
  /** Counts (and records) sessions that ended, by why. */
  count: (ending: Ending, ended: EndedSessions) => void
  /** An ending's leftover once its record was gone (the store failed after it). */
  leftBehind: (what: string, error: unknown) => void
}

export function createSessions<G extends GrantAsRead> (options: SessionsOptions<G>) {
  const { people, signIns, epochs, cipher, grants, settings, now } = options
  const records = createSessionStore<StoredSession>(people, {
    cipher,
    ttlMs: (session) => recordLifetimeMs(session, settings, now()),
    changed: async (session) => {
      const budgetKey = budgetKeyOf(session)
      if (budgetKey !== undefined) await epochs.changed(budgetKey)
    }
  })
  const load = async (sid: string): Promise<SessionRecord | undefined> => recordOf(await records.load(sid))
  const core = createSessionCore({ epochs, readSession: records.load, readGrant: grants.read })
  const ended = sessionEndings({ changed: epochs.changed, announce: options.announce, count: options.count })
  const person = createPersonSessions({
    index: createSessionIndex(people, { lifetimeMs: settings.absoluteTimeoutMs }),
    readSession: load,
    destroySession: async (sid) => { await drop(sid) },
    deleteGrant: grants.delete,
    timeouts: settings,
    now,
    maxPerPerson: options.maxPerPerson ?? MAX_SESSIONS_PER_PERSON,
    leftBehind: options.leftBehind
  })
  const replaced = createReplacedSessions({ store: signIns, readSession: load, timeouts: settings, loginTimeoutMs: settings.loginTimeoutMs, now })
  const drop = async (sid: string): Promise<void> => {
    core.forget(sid)
    await records.drop(sid)
  }
  const endingParts = { deleteGrant: grants.delete, forget: person.forget, ended, leftBehind: options.leftBehind }

  /** Ends a person's sessions with `end`, and tells of it however far it got. */
  const endMany = async (whose: Person, ending: Ending, end: () => Promise<Ended>): Promise<Ended> => {
    let result: Ended
    try {
      result = await end()
    } catch (error) {
      // Part-way: some may be gone already, and the replicas must not keep serving them.
      await ended(ending, { live: 0, handles: [], whose: [budgetKeyOf({ tenant: whose.tenant, grantId: '', authenticatedAt: 0, user: { id: whose.userId } })], partly: true })
      throw error
    }
    await ended(ending, result)
    return result
  }

  return {
    /**
     * A request's session and its count against `counting`, in one exchange with the store for a
     * session this replica keeps (session-core.ts). The copy it leaves is what `restore` gives.
     */
    open: async (sid: string, counting?: CountAgainst): Promise<OpenedSession<G>> => await core.open(sid, counting),
    /** The record @fastify/session restores for `sid`: the copy `open` just checked, else the store's. */
    restore: async (sid: string): Promise<SessionRecord | undefined> => core.peek(sid)?.record ?? await load(sid),
    /** @fastify/session's save: never re-creates a record an ending deleted (src/store/session-store.ts). */
    save: records.save,
    /** @fastify/session's destroy (a rotation's old id): the record and this replica's copy. */
    drop,
    /** Who is signed in with the record, or undefined. */
    signedIn: (sid: string, record: SessionRecord): SignedIn | undefined => signedInOf(sid, record, settings),
    /** What a request does to the session it arrives with (arrival.ts), now. */
    arrive: (signedIn: SignedIn, how: Omit<Arriving, 'now' | 'idleTimeoutMs'>): Arrival => arrivalOf(signedIn, { ...how, now: now(), idleTimeoutMs: settings.idleTimeoutMs }),
    /** The session's grant: as opened with it on this replica, else from the store; undefined when gone. */
    grantOf: async (signedIn: SignedIn): Promise<G | undefined> => {
      const kept = core.peek(signedIn.sid)?.grant
      return kept?.grant.id === signedIn.grantId ? kept : await grants.read(signedIn.grantId)
    },

    /** Puts a completed sign-in into the held session (begin-session.ts). */
    begin: async <S extends NewSession>(held: HeldSession, beginning: Beginning<S>): Promise<void> => {
      await beginSession({ ...endingParts, dropSession: drop, recordSignIn: person.recordSignIn }, held, beginning)
    },
    /**
     * Ends the sign-in a request's session holds (end-session.ts); rejects only when its record
     * could not be dropped, the session then as it was.
     */
    end: async (sid: string, session: StoredSession, ending: Ending): Promise<void> => {
      await endSession(endingParts, session, async () => { await drop(sid) }, ending)
    },
    /** Ends the person's sessions these handles name (live ones; unknown handles are ignored). */
    endHandles: async (whose: Person, handles: readonly string[], ending: Ending): Promise<Ended> => await endMany(whose, ending, async () => await person.end(whose, handles)),
    /** Ends every session of the person but `except` (none: all), and the grants of those already gone. */
    endAll: async (whose: Person, ending: Ending, except?: string): Promise<Ended> => await endMany(whose, ending, async () => await person.endAll(whose, except)),
    /** The person's live sessions, most recently active first. */
    list: async (whose: Person): Promise<LiveSession[]> => await person.list(whose),
    /** When the session (by its store id) ends unless it is used before; undefined when it is over or gone. */
    liveUntil: person.liveUntil,
    /** The live session `sid` names, or what replaced it since (replaced-sessions.ts). */
    liveFrom: replaced.liveFrom,
    rememberReplaced: replaced.remember
  }
}

export type Sessions<G extends GrantAsRead = GrantAsRead> = ReturnType<typeof createSessions<G>>

function recordOf (loaded: unknown): SessionRecord | undefined {
  return loaded !== null && typeof loaded === 'object' ? loaded : undefined
}
