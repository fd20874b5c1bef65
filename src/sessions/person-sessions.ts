// A person's sessions as people and operators see them: listed (live ones only), ended one by
// one, all but one, or all. A session is saved before it is indexed, so an entry whose session
// record is missing is a session that is gone. Ending a session deletes its record and its grant, so its cookie is
// dead on its next request on any instance; the index entry goes with it. At most maxPerPerson
// sessions are kept: a sign-in beyond that ends the oldest (those already gone go first).
import type { IndexedSession, IndexEntry, Person, SessionIndex } from './session-index.js'
import { liveUntil, personBudgetKey, type SessionRecord, type SessionTimeouts } from './signed-in.js'

export interface PersonSessionsOptions {
  index: SessionIndex
  readSession: (sid: string) => Promise<SessionRecord | undefined>
  destroySession: (sid: string) => Promise<void>
  deleteGrant: (grantId: string) => Promise<void>
  timeouts: SessionTimeouts
  maxPerPerson: number
  /** The clock sessions end by. */
  now?: () => number
  /**
   * What an ending left behind once a session's record was gone (a grant, index entries: the
   * store failed), to be logged; the ending itself stands. None given: nothing is said.
   */
  leftBehind?: (what: string, error: unknown) => void
}

/** What ending sessions did: how many were live, and the handles of all ended (their open pages are to be told). */
export interface Ended {
  live: number
  handles: string[]
  /** Whose they were (SignedIn.budgetKey). */
  whose: [string]
}

export interface LiveSession extends IndexEntry {
  lastActiveAt: number
}

export function createPersonSessions (options: PersonSessionsOptions) {
  const { index, readSession, destroySession, deleteGrant, timeouts, maxPerPerson, now: clock = Date.now, leftBehind = () => {} } = options
  const isLive = (record: SessionRecord | undefined, now: number): boolean => liveUntil(record, timeouts, now) !== undefined
  const lastActiveOf = (record: SessionRecord | undefined): number => typeof record?.lastSeen === 'number' ? record.lastSeen : record?.authenticatedAt as number

  /** The live sessions, each with its record; entries of sessions that are gone are pruned. */
  async function live (person: Person, now: number): Promise<LiveSession[]> {
    const entries = await index.entries(person)
    const records = await Promise.all(entries.map(async (entry) => await readSession(entry.sid)))
    const alive: LiveSession[] = []
    const gone: string[] = []
    entries.forEach((entry, i) => {
      const record = records[i]
      if (isLive(record, now)) alive.push({ ...entry, lastActiveAt: lastActiveOf(record) })
      else gone.push(entry.handle)
    })
    if (gone.length > 0) await index.remove(person, gone)
    return alive
  }

  /** Ends each entry's session and grant (records: already read, in the same order) and drops the entries. */
  async function endEntries (person: Person, entries: readonly IndexEntry[], records?: ReadonlyArray<SessionRecord | undefined>): Promise<string[]> {
    await Promise.all(entries.map(async (entry, i) => {
      // A re-authorization may have moved the session to a newer grant: end whichever it holds.
      const record = records === undefined ? await readSession(entry.sid) : records[i]
      const grants = new Set([entry.grantId, record?.grantId].filter((id): id is string => typeof id === 'string'))
      // The record first: once it is gone the session is over, whatever becomes of its grant.
      await destroySession(entry.sid)
      await Promise.all([...grants].map(async (grantId) => {
        await deleteGrant(grantId).catch((error: unknown) => { leftBehind('its grant (gone when it expires)', error) })
      }))
    }))
    const handles = entries.map((entry) => entry.handle)
    await index.remove(person, handles).catch((error: unknown) => { leftBehind('their entries in their person\'s index (pruned when next listed)', error) })
    return handles
  }

  return {
    /**
     * Indexes a new sign-in, in place of `replacing` (the session it rotated from, if it was this
     * person's); resolves to the older sessions that had to end to stay within maxPerPerson.
     */
    async recordSignIn (person: Person, handle: string, session: IndexedSession, replacing?: string): Promise<Ended> {
      const count = await index.add(person, handle, session, replacing)
      const whose: [string] = [personBudgetKey(person)]
      if (count <= maxPerPerson) return { live: 0, handles: [], whose }
      const alive = (await live(person, clock())).filter((entry) => entry.handle !== handle)
      const excess = alive.length + 1 - maxPerPerson
      if (excess <= 0) return { live: 0, handles: [], whose }
      return { live: excess, handles: await endEntries(person, alive.slice(0, excess)), whose }
    },

    /** Live sessions, most recently active first. */
    async list (person: Person): Promise<LiveSession[]> {
      return (await live(person, clock())).sort((a, b) => b.lastActiveAt - a.lastActiveAt)
    },

    /** Ends the sessions whose handles are listed and that are live (unknown ones are ignored). */
    async end (person: Person, handles: readonly string[]): Promise<Ended> {
      const wanted = new Set(handles)
      const alive = (await live(person, clock())).filter((entry) => wanted.has(entry.handle))
      return { live: alive.length, handles: await endEntries(person, alive), whose: [personBudgetKey(person)] }
    },

    /**
     * Ends every session of the person but `except` (none: all), and the grants of sessions that
     * are already gone; `live` counts the live sessions ended.
     */
    async endAll (person: Person, except?: string): Promise<Ended> {
      const entries = (await index.entries(person)).filter((entry) => entry.handle !== except)
      const now = clock()
      const records = await Promise.all(entries.map(async (entry) => await readSession(entry.sid)))
      const handles = await endEntries(person, entries, records)
      return { live: records.filter((record) => isLive(record, now)).length, handles, whose: [personBudgetKey(person)] }
    },

    /**
     * When the session (by its store id) ends unless it is used before: its idle or absolute
     * timeout, whichever comes first; undefined when it is over already or gone.
     */
    async liveUntil (sid: string): Promise<number | undefined> {
      return liveUntil(await readSession(sid), timeouts, clock())
    },

    /** Drops a session from the index (it ended on its own: sign-out, timeout, a new sign-in). */
    async forget (person: Person, handle: string): Promise<void> {
      await index.remove(person, [handle])
    }
  }
}

export type PersonSessions = ReturnType<typeof createPersonSessions>
