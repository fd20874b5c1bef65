// Which sessions a person has on this deployment, found without scanning the store: one map per
// person (tenant + user id), a field per session, written at sign-in and removed when the session
// ends. The map lives as long as the longest session in it can (SESSION_ABSOLUTE_TIMEOUT after
// the latest sign-in), so nothing outlives what it indexes by more than that. One key per person
// keeps every operation on one Redis Cluster hash slot.
//
// An entry can outlive its session (an idle session simply expires in the store): readers check
// the session itself and prune what is gone (person-sessions.ts).
import { isReadableFormat, RECORD_FORMAT } from '../store/record-format.js'
import { createHash, randomBytes } from 'node:crypto'
import type { KeyValueStore } from '../store/key-value-store.js'

export interface Person {
  tenant: string
  userId: string
}

/** What the index keeps of one session. */
export interface IndexedSession {
  /** The store id of the session (never shown: with the cookie secret it would make a cookie). */
  sid: string
  grantId: string
  createdAt: number
  device: string
  network: string
}

export interface IndexEntry extends IndexedSession {
  /** The opaque id people and pages see (`GET /auth/sessions`). */
  handle: string
}

export const HANDLE_PATTERN = /^[A-Za-z0-9_-]{22}$/

export function newSessionHandle (): string {
  return randomBytes(16).toString('base64url')
}

/** The store key of a person's map. Hashed: user ids stay out of key names, and every key is short. */
export function personIndexKey (person: Person): string {
  return `people:${createHash('sha256').update(`${person.tenant}\n${person.userId}`).digest('base64url')}`
}

export function createSessionIndex (store: KeyValueStore, { lifetimeMs }: { lifetimeMs: number }) {
  const keyOf = personIndexKey

  return {
    /** Adds a session (in place of `replacing`, in the same step); resolves to how many the person now has. */
    async add (person: Person, handle: string, session: IndexedSession, replacing?: string): Promise<number> {
      return await store.mapSet(keyOf(person), handle, JSON.stringify({ format: RECORD_FORMAT, ...session }), lifetimeMs, replacing === undefined ? [] : [replacing])
    },

    async remove (person: Person, handles: readonly string[]): Promise<void> {
      await store.mapDelete(keyOf(person), handles)
    },

    /** Every entry, oldest first; an entry that cannot be read is dropped from the index. */
    async entries (person: Person): Promise<IndexEntry[]> {
      const fields = await store.mapGetAll(keyOf(person))
      const entries: IndexEntry[] = []
      const unreadable: string[] = []
      for (const [handle, value] of Object.entries(fields)) {
        const session = readEntry(value)
        // Another version's entry (a rolling upgrade) is that version's to read: left in place.
        if (session === OTHER_FORMAT) continue
        if (session === undefined || !HANDLE_PATTERN.test(handle)) unreadable.push(handle)
        else entries.push({ handle, ...session })
      }
      if (unreadable.length > 0) await store.mapDelete(keyOf(person), unreadable)
      return entries.sort((a, b) => a.createdAt - b.createdAt)
    }
  }
}

export type SessionIndex = ReturnType<typeof createSessionIndex>

const OTHER_FORMAT = Symbol('an entry of a record format this version does not read')

function readEntry (value: string): IndexedSession | typeof OTHER_FORMAT | undefined {
  try {
    const parsed = JSON.parse(value) as Partial<IndexedSession> & { format?: unknown }
    if (!isReadableFormat(parsed)) return OTHER_FORMAT
    const { sid, grantId, createdAt, device, network } = parsed
    if (typeof sid !== 'string' || typeof grantId !== 'string' || typeof createdAt !== 'number' || typeof device !== 'string' || typeof network !== 'string') return undefined
    return { sid, grantId, createdAt, device, network }
  } catch {
    return undefined
  }
}
