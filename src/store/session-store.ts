// The session records behind @fastify/session (v11), over a KeyValueStore: one record
// `sess:<id>` per session, JSON sealed with the token cipher (the session id its AAD), expiring
// with the session. @fastify/session hands `set` its Session object and rebuilds a Session from
// whatever `get` returns, copying every field but `cookie`; the cookie is never stored (the
// server's timeouts end a session, and @fastify/session rebuilds its cookie from its options).
//
// Every record read carries `asStored`, the text it was read as (never stored itself), which
// @fastify/session copies into the request's Session like any field. Saving that Session is a
// compare-and-set against it: a record an ending deleted meanwhile (on any instance) is never
// written again, and one saved unchanged is not written at all. A Session that never came from
// the store (a sign-in's new one) is written only where there is no record.
import { StoreUnavailableError, type KeyValueStore } from './key-value-store.js'
import type { TokenCipher } from './token-cipher.js'
import { createBoundedMemo } from '../bounded-memo.js'

/** Records opened recently, by their stored text: every signed-in request restores its session. */
const OPENED_MEMO_ENTRIES = 4096

/** The field of a read record that holds the text it was read as. */
export const AS_STORED = 'asStored'

export interface SessionStoreOptions<S extends object> {
  /** How long the record lives after this save; <= 0: the session is over, its record is deleted. */
  ttlMs: (session: S) => number
  /** Seals each record; the session id is the AAD, so a record cannot be replayed under another id. */
  cipher?: TokenCipher
  /**
   * After a session was written or deleted by `set`: replicas that keep a copy of it learn from
   * this (src/sessions/session-epochs.ts). The write stands whether or not that news reaches the
   * store: a replica that misses it reads the session again within MAX_AGE_MS
   * (src/sessions/session-core.ts).
   */
  changed?: (session: S) => Promise<void>
}

export interface SessionStore<S extends object> {
  /** The record, frozen and shared, with its `asStored`; undefined when there is none. */
  load: (sessionId: string) => Promise<unknown>
  /**
   * Writes the session as @fastify/session's set does (see above); resolves to whether it was
   * written (false: unchanged, or its record changed or went meanwhile).
   */
  save: (sessionId: string, session: S) => Promise<boolean>
  drop: (sessionId: string) => Promise<void>
}

interface Opened {
  sessionId: string
  value: unknown
  /** The record's JSON, to tell a save that changes nothing. */
  json: string
}

export function createSessionStore<S extends object> (store: KeyValueStore, { ttlMs, cipher, changed }: SessionStoreOptions<S>): SessionStore<S> {
  const keyOf = (sessionId: string): string => `sess:${sessionId}`
  const seal = (sessionId: string, json: string): string => cipher === undefined ? json : cipher.encrypt(json, keyOf(sessionId))
  const open = (sessionId: string, stored: string): string => cipher === undefined ? stored : cipher.decrypt(stored, keyOf(sessionId))

  // A stored record always opens to the same session, so it is opened and parsed once and then
  // shared, frozen: @fastify/session copies its fields into a Session of its own, and a change is
  // always a new record (save), never an edit of one read. The id is part of the key, since the
  // record is sealed for it.
  const opened = createBoundedMemo<Opened>(OPENED_MEMO_ENTRIES)
  const remember = (sessionId: string, stored: string, json: string): Opened => {
    const entry = { sessionId, value: deepFreeze({ ...JSON.parse(json) as object, [AS_STORED]: stored }), json }
    opened.set(stored, entry)
    return entry
  }

  return {
    async load (sessionId) {
      const stored = await storeCall(() => store.get(keyOf(sessionId)))
      if (stored === undefined) return undefined
      const known = opened.get(stored)
      if (known !== undefined && known.sessionId === sessionId) return known.value
      try {
        return remember(sessionId, stored, open(sessionId, stored)).value
      } catch {
        // Sealed under a key since removed from TOKEN_KEYS, or damaged: for the user this is
        // the same as an expired session (a new one is started), not a server error.
        return undefined
      }
    },

    async save (sessionId, session) {
      const asStored = (session as Record<string, unknown>)[AS_STORED]
      const expected = typeof asStored === 'string' ? asStored : undefined
      // Sealed outside storeCall: a session that is not JSON is a bug to report, not an outage.
      const json = recordJson(session)
      const lifetimeMs = ttlMs(session)
      if (lifetimeMs <= 0) {
        if (expected === undefined) await storeCall(() => store.delete(keyOf(sessionId)))
        else await storeCall(() => store.deleteIfEquals(keyOf(sessionId), expected))
      } else {
        const before = expected === undefined ? undefined : opened.get(expected)
        if (before?.sessionId === sessionId && before.json === json) return false
        const sealed = seal(sessionId, json)
        const written = await storeCall(() => store.compareAndSet(keyOf(sessionId), expected, sealed, lifetimeMs))
        if (!written) return false
        remember(sessionId, sealed, json)
        // The Session now stands for what was written: a second save compares against it.
        ;(session as Record<string, unknown>)[AS_STORED] = sealed
      }
      await changed?.(session).catch(() => {})
      return true
    },

    async drop (sessionId) {
      await storeCall(() => store.delete(keyOf(sessionId)))
    }
  }
}

function deepFreeze<T> (value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const field of Object.values(value)) deepFreeze(field)
    Object.freeze(value)
  }
  return value
}

/** The session's JSON without its cookie or the text it was read as; both are set aside, not copied. */
function recordJson (session: object): string {
  if (Object.isFrozen(session)) return JSON.stringify({ ...session, cookie: undefined, [AS_STORED]: undefined })
  const holder = session as { cookie?: unknown, [AS_STORED]?: unknown }
  const { cookie } = holder
  const asStored = holder[AS_STORED]
  holder.cookie = undefined
  holder[AS_STORED] = undefined
  try {
    return JSON.stringify(session)
  } finally {
    holder.cookie = cookie
    holder[AS_STORED] = asStored
  }
}

/** Every failure of the key-value store reaches @fastify/session as StoreUnavailableError. */
async function storeCall<T> (call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw error
    throw new StoreUnavailableError('session store failed', { cause: error })
  }
}
