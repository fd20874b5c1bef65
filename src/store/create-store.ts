// The one switch between the two deployments (README.md, "Scaling out with Redis"): no REDIS_URL, everything lives in this
// process (bounded, with TTLs); with it, every instance shares Redis.
import type { Cluster, Redis } from 'ioredis'
import type { KeyValueStore } from './key-value-store.js'
import { createMemoryStore } from './memory-store.js'
import type { StoreLogger } from './redis-client.js'
import { createRedisStore } from './redis-store.js'

export interface CreateStoreOptions {
  /** Absent or empty: the in-memory store. */
  redisUrl?: string | undefined
  /** Redis only (a memory store is private to its process anyway). */
  keyPrefix?: string
  /** Redis over TLS only: PEM certificates to trust instead of the system's (a private CA). */
  tlsCa?: string | undefined
  connectTimeoutMs?: number
  commandTimeoutMs?: number
  /** Memory only. */
  maxEntries?: number
  /** Memory only. */
  sweepIntervalMs?: number
  logger?: StoreLogger
}

/** The store, and with Redis its client, for what needs Redis itself (@fastify/rate-limit). */
export type CreatedStore = KeyValueStore & { readonly redisClient?: Redis | Cluster }

export function createStore (options: CreateStoreOptions = {}): CreatedStore {
  const { redisUrl, keyPrefix, tlsCa, connectTimeoutMs, commandTimeoutMs, maxEntries, sweepIntervalMs, logger } = options
  if (redisUrl === undefined || redisUrl === '') {
    return createMemoryStore({ maxEntries, sweepIntervalMs })
  }
  return createRedisStore({ url: redisUrl, keyPrefix, tlsCa, connectTimeoutMs, commandTimeoutMs, logger })
}
