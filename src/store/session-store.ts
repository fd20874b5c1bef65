// The store @fastify/session (v11) talks to, over a KeyValueStore: one record `sess:<id>` per
// session, JSON, optionally sealed with the token cipher, expiring with the session.
//
// @fastify/session hands `set` its Session object (whose cookie is a Cookie instance with a
// toJSON) and rebuilds a Session from whatever `get` returns, copying every key but `cookie`.
// Its own MemoryStore returns the very object it was given; a shared store can only return what
// JSON keeps of it: the same keys, with the cookie as plain data (dates as ISO strings), which
// the Session constructor accepts as it accepts cookie.toJSON(). Values in the session must be
// JSON (a Date comes back as a string).
import { StoreUnavailableError, type KeyValueStore } from './key-value-store.js'
import type { TokenCipher } from './token-cipher.js'
import { createBoundedMemo } from '../bounded-memo.js'

/** Records opened recently, by their stored value: every signed-in request reads its session. */
const OPENED_MEMO_ENTRIES = 4096

export interface SessionStoreOptions<S extends object> {
  /**
   * How long the record lives after this save. Defaults to the cookie's remaining lifetime
   * (maxAge or expires) and, for a cookie without one, defaultTtlMs. A result <= 0 means the
   * session is over: the record is deleted instead of written.
   */
  ttlMs?: (session: S) => number
  /** Lifetime of sessions whose cookie does not say (browser-session cookies). Default 24 h. */
  defaultTtlMs?: number
  /** Seals each record; the session id is the AAD, so a record cannot be replayed under another id. */
  cipher?: TokenCipher
  /**
   * Whether the cookie's state is stored with the session (default true). A browser-session cookie
   * whose lifetime the server decides (ttlMs) has nothing worth keeping: left out, each record is
   * smaller and @fastify/session rebuilds the cookie from its options alone, which is cheaper.
   */
  storeCookie?: boolean
  /**
   * After a session was written or deleted by `set`: replicas that keep a copy of it learn from
   * this (src/sessions/session-epochs.ts). The write stands whether or not that news reaches the
   * store: a replica that misses it reads the session again within MAX_AGE_MS
   * (src/sessions/session-core.ts).
   */
  changed?: (session: S) => Promise<void>
}

type Callback = (error?: unknown) => void
// What get yields is JSON.parse output, typed `any` as JSON.parse types it: it has to fit whatever
// Session type the application declares for @fastify/session, which checks callbacks strictly.
type GetCallback = (error: unknown, session?: any) => void

export interface SessionStore<S extends object> {
  set: (sessionId: string, session: S, callback: Callback) => void
  get: (sessionId: string, callback: GetCallback) => void
  destroy: (sessionId: string, callback: Callback) => void
  /** get, as a promise: another request's session, read from outside @fastify/session. */
  load: (sessionId: string) => Promise<unknown>
  /** destroy, as a promise. */
  drop: (sessionId: string) => Promise<void>
}

const dayMs = 24 * 60 * 60 * 1000

export function createSessionStore<S extends object = object> (
  store: KeyValueStore,
  { ttlMs, defaultTtlMs = dayMs, cipher, storeCookie = true, changed }: SessionStoreOptions<S> = {}
): SessionStore<S> {
  const serialise = storeCookie ? (session: S) => JSON.stringify(session) : withoutCookie
  const lifetimeOf = ttlMs ?? ((session: S) => cookieLifetimeMs(session, defaultTtlMs))
  const keyOf = (sessionId: string): string => `sess:${sessionId}`
  const seal = (sessionId: string, json: string): string => cipher === undefined ? json : cipher.encrypt(json, keyOf(sessionId))
  const open = (sessionId: string, stored: string): string => cipher === undefined ? stored : cipher.decrypt(stored, keyOf(sessionId))

  // A stored record always opens to the same session, so it is opened and parsed once and then
  // shared, frozen: @fastify/session copies its fields into a Session of its own, and a change is
  // always a new record (set), never an edit of one read. The id is part of the key, since the
  // record is sealed for it.
  const opened = createBoundedMemo<{ sessionId: string, value: unknown }>(OPENED_MEMO_ENTRIES)
  const load = async (sessionId: string): Promise<unknown> => {
    const stored = await storeCall(() => store.get(keyOf(sessionId)))
    if (stored === undefined) return undefined
    const remembered = opened.get(stored)
    if (remembered !== undefined && remembered.sessionId === sessionId) return remembered.value
    try {
      const value = deepFreeze(JSON.parse(open(sessionId, stored)) as unknown)
      opened.set(stored, { sessionId, value })
      return value
    } catch {
      // Sealed under a key since removed from TOKEN_KEYS, or damaged: for the user this is
      // the same as an expired session (a new one is started), not a server error.
      return undefined
    }
  }
  const drop = async (sessionId: string): Promise<void> => { await storeCall(() => store.delete(keyOf(sessionId))) }

  return {
    load,
    drop,

    set (sessionId, session, callback) {
      settle(async () => {
        const lifetimeMs = lifetimeOf(session)
        if (lifetimeMs > 0) {
          // Sealed outside storeCall: a session that is not JSON is a bug to report, not an outage.
          const record = seal(sessionId, serialise(session))
          await storeCall(() => store.set(keyOf(sessionId), record, lifetimeMs))
        } else {
          await storeCall(() => store.delete(keyOf(sessionId)))
        }
        await changed?.(session).catch(() => {})
      }, callback)
    },

    get (sessionId, callback) {
      settle(async () => await load(sessionId), (error, session) => { callback(error ?? null, session) })
    },

    destroy (sessionId, callback) {
      settle(async () => { await drop(sessionId) }, callback)
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

/** The session's JSON without its cookie; the cookie is set aside for the moment, not copied. */
function withoutCookie (session: object): string {
  const holder = session as { cookie?: unknown }
  if (!('cookie' in holder)) return JSON.stringify(session)
  const cookie = holder.cookie
  holder.cookie = undefined
  try {
    return JSON.stringify(session)
  } finally {
    holder.cookie = cookie
  }
}

/** The cookie's remaining lifetime, as @fastify/session's Cookie (or its JSON form) states it. */
function cookieLifetimeMs (session: object, fallbackMs: number): number {
  const cookie: unknown = (session as { cookie?: unknown }).cookie
  if (typeof cookie !== 'object' || cookie === null) return fallbackMs
  const { maxAge, expires } = cookie as { maxAge?: unknown, expires?: unknown }
  if (typeof maxAge === 'number') return maxAge
  if (expires instanceof Date || typeof expires === 'string') {
    const at = new Date(expires).getTime()
    if (!Number.isNaN(at)) return at - Date.now()
  }
  return fallbackMs
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

// Callbacks run outside the promise chain (next tick), so an exception thrown by the callback is
// not mistaken for a store failure and the callback is never called twice.
function settle<T> (work: () => Promise<T>, callback: (error: unknown, value?: T) => void): void {
  work().then(
    (value) => process.nextTick(callback, null, value),
    (error: unknown) => process.nextTick(callback, error)
  )
}
