// One small interface over the two backends (bounded in-memory, Redis). Every store of media-bff
// (sessions and the index of each person's sessions, grants, used sign-ins, upload
// registrations, locks) is built on it, so the same code runs embedded and scaled out.
//
// Values are strings; callers serialise (and encrypt) before writing. Every write carries a TTL
// in milliseconds: nothing lives forever, so nothing leaks.

export interface KeyValueStore {
  /** The value, or undefined when absent or expired. */
  get: (key: string) => Promise<string | undefined>
  /** Writes value with a TTL, replacing whatever was there. */
  set: (key: string, value: string, ttlMs: number) => Promise<void>
  /** Writes only when the key is absent. True when it wrote. */
  setIfAbsent: (key: string, value: string, ttlMs: number) => Promise<boolean>
  delete: (key: string) => Promise<void>
  /**
   * Writes value only when the current value is exactly `expected` (undefined: the key must be
   * absent). True when it wrote. Grants are written this way so an older copy never wins.
   */
  compareAndSet: (key: string, expected: string | undefined, value: string, ttlMs: number) => Promise<boolean>
  /** Deletes only when the current value is exactly `expected` (lock release by its owner). */
  deleteIfEquals: (key: string, expected: string) => Promise<boolean>
  /** Resets the TTL only when the current value is exactly `expected` (lock lease renewal). */
  expireIfEquals: (key: string, expected: string, ttlMs: number) => Promise<boolean>
  /**
   * Sets one field of the map at key, creating the map, removes the fields listed in `removing`
   * in the same atomic step, and keeps the map at least ttlMs longer (a longer TTL it already has
   * stays). Returns how many fields it holds now. Maps hold a few small fields (a person's
   * sessions), read whole.
   */
  mapSet: (key: string, field: string, value: string, ttlMs: number, removing?: readonly string[]) => Promise<number>
  /** Every field of the map at key; empty when it is absent or expired. */
  mapGetAll: (key: string) => Promise<Record<string, string>>
  /** Removes fields of the map at key; a map left empty is gone. */
  mapDelete: (key: string, fields: readonly string[]) => Promise<void>
  /**
   * What every signed-in request asks of the store, in one exchange (src/sessions/session-core.ts):
   * the value at key, written as `initial` for ttlMs when absent, and with `counter`, that counter
   * counted up by one in the same step. A counter is a fixed window: it starts at its first count
   * and is gone windowMs later. On Redis Cluster the two keys must share a hash slot (`{tag}`).
   */
  readAndCount: (key: string, initial: string, ttlMs: number, counter?: Counter) => Promise<ReadAndCounted>
  /** Resolves when the backend answers; rejects when it is unreachable (readiness). */
  ping: () => Promise<void>
  close: () => Promise<void>
}

export interface Counter {
  key: string
  windowMs: number
}

export interface ReadAndCounted {
  value: string
  /** The counter's count, this one included (with a counter). */
  count?: number
  /** How long the counter's window has left (with a counter). */
  resetInMs?: number
}

/**
 * The store could not be reached or answered with an error. Routes map it to 503 `unavailable`
 * and keep the session cookie: the data is still there once the store is back.
 */
export class StoreUnavailableError extends Error {
  constructor (message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'StoreUnavailableError'
  }
}

/**
 * The store holds as much as it may and refuses more (Redis at maxmemory under the noeviction
 * policy); named apart in logs. A StoreUnavailableError, so it answers 503 and keeps the session.
 */
export class StoreFullError extends StoreUnavailableError {
  constructor (message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'StoreFullError'
  }
}
