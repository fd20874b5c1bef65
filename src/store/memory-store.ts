// The embedded backend: one process, no Redis. Every entry expires (lazily on access and by a
// periodic sweep), and the number of entries is bounded so that nothing grows memory without
// limit.
//
// When full, first expired entries go; then, for bookkeeping (`whenFull: 'evict'`, the default),
// the least recently used ones; for what must never be pushed out (sessions, grants, the person
// index: `whenFull: 'refuse'`), nothing: a write of a new key fails with StoreFullError, while
// writes to keys already there always succeed. The Map
// keeps insertion order and every access re-inserts its key, so the first key is always the least
// recently used and eviction is O(1). LRU was chosen over "closest to expiry" because it needs no
// second index (a heap would cost memory per entry) and, with the sliding TTLs of sessions,
// the two orders mostly agree anyway.
import { StoreFullError, StoreUnavailableError, type KeyValueStore } from './key-value-store.js'
import { wholeTtlMs } from './ttl.js'
import { flattened } from '../flat-string.js'

export interface MemoryStoreOptions {
  /** Upper bound on live entries. */
  maxEntries?: number
  /** How often expired entries are swept out even when nobody reads them. */
  sweepIntervalMs?: number
  /** At maxEntries: forget the least recently used entry (default), or refuse the new key. */
  whenFull?: 'evict' | 'refuse'
  /** The clock TTLs run on (tests pass one they can move on). */
  now?: () => number
}

export interface MemoryStore extends KeyValueStore {
  /** Entries held, including expired ones the sweep has not reached yet (for metrics and tests). */
  readonly size: number
}

interface Entry {
  value: string
  /** Epoch milliseconds after which the entry is gone. */
  expiresAt: number
}

// When the store is full, sweeping every entry on each insert would make inserts O(n); at most
// one such sweep per this interval, plain LRU eviction in between.
const pressureSweepEveryMs = 1000

/** A map's fields as the memory store keeps them: one JSON object, without a prototype. */
function mapOf (entry: Entry | undefined): Record<string, string> {
  const map = Object.create(null) as Record<string, string>
  if (entry !== undefined) Object.assign(map, JSON.parse(entry.value) as Record<string, string>)
  return map
}

export function createMemoryStore ({ maxEntries = 100_000, sweepIntervalMs = 30_000, whenFull = 'evict', now = Date.now }: MemoryStoreOptions = {}): MemoryStore {
  if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError('maxEntries must be a positive integer')
  if (!Number.isFinite(sweepIntervalMs) || sweepIntervalMs <= 0) throw new RangeError('sweepIntervalMs must be a positive number')

  const entries = new Map<string, Entry>()
  let closed = false
  let lastPressureSweepAt = 0

  const sweepExpired = (): void => {
    const at = now()
    for (const [key, entry] of entries) {
      if (entry.expiresAt <= at) entries.delete(key)
    }
  }
  const sweepTimer = setInterval(sweepExpired, sweepIntervalMs)
  // The sweep is housekeeping: it must never keep the process alive on its own.
  sweepTimer.unref()

  const assertOpen = (): void => {
    if (closed) throw new StoreUnavailableError('memory store is closed')
  }

  // Only a store that evicts needs its order of use: one that refuses never picks a victim.
  const keepsOrderOfUse = whenFull === 'evict'
  /** The live entry, marked most recently used (when that matters); drops it when it has expired. */
  const live = (key: string): Entry | undefined => {
    const entry = entries.get(key)
    if (entry === undefined) return undefined
    if (entry.expiresAt <= now()) {
      entries.delete(key)
      return undefined
    }
    if (keepsOrderOfUse) {
      entries.delete(key)
      entries.set(key, entry)
    }
    return entry
  }

  const makeRoomForOneMore = (): void => {
    if (entries.size < maxEntries) return
    const at = now()
    if (at - lastPressureSweepAt >= pressureSweepEveryMs) {
      lastPressureSweepAt = at
      sweepExpired()
    }
    if (entries.size < maxEntries) return
    if (whenFull === 'refuse') throw new StoreFullError(`memory store holds its ${maxEntries} entries`)
    for (const key of entries.keys()) {
      if (entries.size < maxEntries) break
      entries.delete(key)
    }
  }

  const write = (key: string, value: string, ttlMs: number): void => {
    const expiresAt = now() + wholeTtlMs(ttlMs)
    // Re-inserting moves the key to the most recently used end.
    if (!entries.delete(key)) makeRoomForOneMore()
    // Sealed values are built by concatenation: flat, each is about 100 bytes smaller.
    entries.set(key, { value: flattened(value), expiresAt })
  }

  return {
    get size () {
      return entries.size
    },
    async get (key) {
      assertOpen()
      return live(key)?.value
    },
    async set (key, value, ttlMs) {
      assertOpen()
      write(key, value, ttlMs)
    },
    async setIfAbsent (key, value, ttlMs) {
      assertOpen()
      wholeTtlMs(ttlMs)
      if (live(key) !== undefined) return false
      write(key, value, ttlMs)
      return true
    },
    async delete (key) {
      assertOpen()
      entries.delete(key)
    },
    async compareAndSet (key, expected, value, ttlMs) {
      assertOpen()
      wholeTtlMs(ttlMs)
      if (live(key)?.value !== expected) return false
      write(key, value, ttlMs)
      return true
    },
    async deleteIfEquals (key, expected) {
      assertOpen()
      if (live(key)?.value !== expected) return false
      entries.delete(key)
      return true
    },
    async expireIfEquals (key, expected, ttlMs) {
      assertOpen()
      const wholeMs = wholeTtlMs(ttlMs)
      const entry = live(key)
      if (entry?.value !== expected) return false
      entry.expiresAt = now() + wholeMs
      return true
    },
    async mapSet (key, field, value, ttlMs, removing = []) {
      assertOpen()
      const wholeMs = wholeTtlMs(ttlMs)
      const entry = live(key)
      const map = mapOf(entry)
      for (const removed of removing) delete map[removed]
      map[field] = value
      write(key, JSON.stringify(map), wholeMs)
      // Like Redis's PEXPIRE only when longer: a map outlives its longest-lived field.
      const written = entries.get(key)
      if (written !== undefined && entry !== undefined && entry.expiresAt > written.expiresAt) written.expiresAt = entry.expiresAt
      return Object.keys(map).length
    },
    async mapGetAll (key) {
      assertOpen()
      return { ...mapOf(live(key)) }
    },
    async mapDelete (key, fields) {
      assertOpen()
      const entry = live(key)
      if (entry === undefined) return
      const map = mapOf(entry)
      for (const field of fields) delete map[field]
      if (Object.keys(map).length === 0) entries.delete(key)
      else entry.value = JSON.stringify(map)
    },
    async readAndCount (key, initial, ttlMs, counter) {
      assertOpen()
      wholeTtlMs(ttlMs)
      let value = live(key)?.value
      if (value === undefined) {
        write(key, initial, ttlMs)
        value = initial
      }
      if (counter === undefined) return { value }
      const window = live(counter.key)
      const count = window === undefined ? 1 : Number(window.value) + 1
      if (window === undefined) write(counter.key, '1', counter.windowMs)
      else window.value = String(count)
      const resetInMs = (window?.expiresAt ?? now() + wholeTtlMs(counter.windowMs)) - now()
      return { value, count, resetInMs }
    },
    async ping () {
      assertOpen()
    },
    async close () {
      closed = true
      clearInterval(sweepTimer)
      entries.clear()
    }
  }
}
