// Every store of media-bff, by what it holds and what it may never do to the rest
// (docs/guide/operate.md, "Sizing the stores"). People's records (sessions, grants, each person's
// index of sessions) and the refresh locks of their grants are never pushed out to make room for
// anything: when their bound is reached a *new* sign-in is refused (roomForSignIn), never an
// existing person dropped. Bookkeeping (used sign-in states, upload registrations, remembered
// finishes, webhook ids and tokens) lives in bounded stores of its own, so a flood of it can only
// push out its own kind.
//
// In memory each family is a store of its own, sized from MEMORY_MAX_SESSIONS. On Redis they
// share the server, and room is shared out by how full it is (redis-memory.ts): webhooks stop
// first, then upload registrations and finishes, then new sign-ins, and the people already signed
// in keep the rest.
import type { Cluster, Redis } from 'ioredis'
import type { KeyValueStore } from './key-value-store.js'
import { createMemoryStore, type MemoryStore } from './memory-store.js'
import { createRedisStore } from './redis-store.js'
import type { StoreLogger } from './redis-client.js'
import { CEILINGS, createRedisMemoryWatch, SIGN_IN_READING_MS } from './redis-memory.js'

export const FAMILIES = ['people', 'checks', 'locks', 'sign_ins', 'uploads', 'finishes', 'webhooks'] as const
export type Family = typeof FAMILIES[number]

export interface StoreFamilies {
  /** Sessions, grants and each person's index of sessions: never evicted. */
  people: KeyValueStore
  /**
   * What each signed-in request checks (src/sessions/session-core.ts): each person's epoch, and
   * their rate counters. In memory the least recently used go (a lost epoch only costs the
   * cached sessions a re-read, a lost counter starts its window again).
   */
  checks: KeyValueStore
  /** The refresh locks of people's grants: never evicted (two refreshes of one grant end it). */
  locks: KeyValueStore
  /** Sign-in states already used (single use), for what is left of LOGIN_TIMEOUT. */
  signIns: KeyValueStore
  /** Upload registrations, until they expire. */
  uploads: KeyValueStore
  /** Which sign-in finished which file, and what its pages were last told of it. */
  finishes: KeyValueStore
  /** Webhook ids and signature tokens already taken. */
  webhooks: KeyValueStore
  /** The Redis connection, when REDIS_URL is set: for what needs Redis itself (rate limits, the event bus, the webhook queue). */
  redis: Redis | Cluster | undefined
  /** Whether one more sign-in may take room now. */
  roomForSignIn: () => Promise<boolean>
  /** Entries per family (memory only; on Redis, `fullness` says how full the server is). */
  sizes: () => Partial<Record<Family, number>>
  /** Redis only: the used share of maxmemory on the fullest master, when maxmemory is set. */
  fullness: () => Promise<number | undefined>
  ping: () => Promise<void>
  close: () => Promise<void>
}

/**
 * The bound of each in-memory family, from MEMORY_MAX_SESSIONS (docs/guide/operate.md, "Sizing the
 * stores").
 */
export function memoryBounds (maxSessions: number): Record<Family, number> & { admitPeopleBelow: number } {
  return {
    // A session, its grant and its person's index: up to three entries per sign-in. The last
    // quarter is for sign-ins that raced past the admission check and for grants a
    // re-authorization replaces; a write of a new key beyond it is refused, never evicted.
    people: 4 * maxSessions,
    admitPeopleBelow: 3 * maxSessions,
    // A person's epoch and up to five rate counters, which a person shares among their sessions.
    checks: 6 * maxSessions,
    locks: 4 * maxSessions,
    sign_ins: maxSessions,
    uploads: maxSessions,
    finishes: 2 * maxSessions,
    webhooks: 2 * maxSessions
  }
}

export interface StoreFamiliesOptions {
  /** Absent: every family in this process's memory. */
  redisUrl?: string | undefined
  keyPrefix?: string
  tlsCa?: string | undefined
  /** Memory only: sign-ins held at once before new ones are refused. */
  maxSessions?: number
  /** Memory only: the clock TTLs run on (Redis keeps its own). */
  now?: () => number
  commandTimeoutMs?: number
  logger?: StoreLogger
}

export function createStoreFamilies (options: StoreFamiliesOptions): StoreFamilies {
  return options.redisUrl === undefined || options.redisUrl === ''
    ? memoryFamilies(options.maxSessions ?? 50_000, options.now)
    : redisFamilies(options.redisUrl, options)
}

function memoryFamilies (maxSessions: number, now?: () => number): StoreFamilies {
  const bounds = memoryBounds(maxSessions)
  const clock = now === undefined ? {} : { now }
  const neverEvicted = (maxEntries: number): MemoryStore => createMemoryStore({ maxEntries, whenFull: 'refuse', ...clock })
  const own = (maxEntries: number): MemoryStore => createMemoryStore({ maxEntries, ...clock })
  const stores: Record<Family, MemoryStore> = {
    people: neverEvicted(bounds.people),
    checks: own(bounds.checks),
    locks: neverEvicted(bounds.locks),
    sign_ins: own(bounds.sign_ins),
    uploads: own(bounds.uploads),
    finishes: own(bounds.finishes),
    webhooks: own(bounds.webhooks)
  }
  return {
    people: stores.people,
    checks: stores.checks,
    locks: stores.locks,
    signIns: stores.sign_ins,
    uploads: stores.uploads,
    finishes: stores.finishes,
    webhooks: stores.webhooks,
    redis: undefined,
    roomForSignIn: async () => stores.people.size < bounds.admitPeopleBelow,
    sizes: () => Object.fromEntries(FAMILIES.map((family) => [family, stores[family].size])),
    fullness: async () => undefined,
    ping: async () => { await stores.people.ping() },
    close: async () => { await Promise.all(Object.values(stores).map(async (store) => { await store.close() })) }
  }
}

function redisFamilies (url: string, { keyPrefix, tlsCa, commandTimeoutMs, logger }: StoreFamiliesOptions): StoreFamilies {
  const store = createRedisStore({ url, keyPrefix, tlsCa, commandTimeoutMs, logger })
  const watch = createRedisMemoryWatch(store.redisClient)
  return {
    people: store,
    // An epoch and a counter a person at most: the people's tier. A script that writes is refused
    // at maxmemory, and then the session is read as it would be without them (session-core.ts).
    checks: store,
    locks: store,
    // Written only for sign-ins let in (roomForSignIn), at most one each: people's tier.
    signIns: store,
    uploads: store.heldBackAbove(CEILINGS.uploads, 'upload registrations'),
    finishes: store.heldBackAbove(CEILINGS.finishes, 'remembered finishes'),
    webhooks: store.heldBackAbove(CEILINGS.webhooks, 'webhooks'),
    redis: store.redisClient,
    // A fresh reading for each: sign-ins are few, and one a second late could let a burst past.
    // Starting a sign-in needs no store: with Redis away, its callback is what meets the outage.
    roomForSignIn: async () => ((await watch.fullness(SIGN_IN_READING_MS)) ?? 0) < CEILINGS.signIns,
    sizes: () => ({}),
    fullness: watch.fullness,
    ping: store.ping,
    close: store.close
  }
}
