// The key-value store (memory or Redis), the token cipher, and the records built on them:
// login transactions, grants and upload registrations.
import fp from 'fastify-plugin'
import type { Cluster, Redis } from 'ioredis'
import { createStore } from '../src/store/create-store.js'
import type { KeyValueStore } from '../src/store/key-value-store.js'
import { createTokenCipher, type TokenCipher } from '../src/store/token-cipher.js'
import { createGrantStore, type GrantStore } from '../src/grants/grant-store.js'
import { createLoginTransactions, type LoginTransactions } from '../src/oauth/login-transactions.js'
import { createRegistrations, type Registrations } from '../src/uploads/registrations.js'

declare module 'fastify' {
  interface FastifyInstance {
    kv: KeyValueStore
    /** Login transactions: written for anyone who asks, so in memory a full store refuses rather than evicts. */
    ephemeralKv: KeyValueStore
    /** Upload registrations: in memory a store of their own, so heavy uploading never evicts a session. */
    uploadKv: KeyValueStore
    /** The Redis connection behind kv when REDIS_URL is set (rate-limit counters live there too). */
    redisClient: Redis | Cluster | undefined
    cipher: TokenCipher
    grants: GrantStore
    loginTransactions: LoginTransactions
    registrations: Registrations
  }
}

/**
 * In memory, the most login transactions (and their per-browser lists) held at once. A sealed
 * transaction is at most about 2 KB (test/auth/login-flood.test.ts measures it), so a full store
 * costs some 50 MB; sign-ins beyond it are refused with 503 until older ones are used or expire.
 */
export const LOGIN_STORE_MAX_ENTRIES = 25_000

/**
 * In memory, the most upload registrations remembered at once (about 250 B each, so some 12 MB
 * when full). Beyond it the least recently used is forgotten: finishing that one upload is a 404,
 * and no session or grant is ever evicted to make room.
 */
export const UPLOAD_STORE_MAX_ENTRIES = 50_000

export default fp(async (app) => {
  const { config } = app
  const kv = createStore({ redisUrl: config.redisUrl, keyPrefix: config.redisKeyPrefix, logger: app.log })
  // In memory, login transactions get a bounded store of their own that refuses new entries when
  // full: GET /auth/login needs no sign-in, so a flood of it must neither evict real sessions nor
  // the transactions of people signing in right now. Redis holds both; at maxmemory with
  // noeviction it refuses writes the same way (StoreFullError).
  const ephemeralKv = config.redisUrl === undefined ? createStore({ maxEntries: LOGIN_STORE_MAX_ENTRIES, whenFull: 'refuse' }) : kv
  const uploadKv = config.redisUrl === undefined ? createStore({ maxEntries: UPLOAD_STORE_MAX_ENTRIES }) : kv
  const cipher = createTokenCipher(config.tokenKeys)
  app.decorate('kv', kv)
  app.decorate('ephemeralKv', ephemeralKv)
  app.decorate('uploadKv', uploadKv)
  app.decorate<Redis | Cluster | undefined>('redisClient', kv.redisClient)
  app.decorate('cipher', cipher)
  app.decorate('grants', createGrantStore(kv, cipher, { ttlMs: config.session.absoluteTimeoutMs }))
  app.decorate('loginTransactions', createLoginTransactions(ephemeralKv, cipher, {
    ttlMs: config.session.loginTimeoutMs,
    maxPerBrowser: config.session.maxLoginsPerBrowser
  }))
  app.decorate('registrations', createRegistrations(uploadKv))
  app.addHook('onClose', async () => {
    await kv.close()
    if (ephemeralKv !== kv) await ephemeralKv.close()
    if (uploadKv !== kv) await uploadKv.close()
  })
}, { name: 'stores', dependencies: ['config'] })
