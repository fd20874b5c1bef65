// The key-value store (memory or Redis), the token cipher, and the records built on them:
// login transactions (sealed into the browser's cookies; the store only marks used ones), grants
// and upload registrations.
import fp from 'fastify-plugin'
import type { Cluster, Redis } from 'ioredis'
import { createStore } from '../src/store/create-store.js'
import type { KeyValueStore } from '../src/store/key-value-store.js'
import { createTokenCipher, type TokenCipher } from '../src/store/token-cipher.js'
import { createGrantStore, type GrantStore } from '../src/grants/grant-store.js'
import { createLoginTransactions, type LoginTransactions } from '../src/oauth/login-transactions.js'
import { createLoginStateSigner } from '../src/oauth/login-state.js'
import { createRegistrations, type Registrations } from '../src/uploads/registrations.js'

declare module 'fastify' {
  interface FastifyInstance {
    kv: KeyValueStore
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
 * In memory, the most upload registrations remembered at once (about 250 B each, so some 12 MB
 * when full). Beyond it the least recently used is forgotten: finishing that one upload is a 404,
 * and no session or grant is ever evicted to make room.
 */
export const UPLOAD_STORE_MAX_ENTRIES = 50_000

export default fp(async (app) => {
  const { config } = app
  const kv = createStore({ redisUrl: config.redisUrl, keyPrefix: config.redisKeyPrefix, logger: app.log })
  const uploadKv = config.redisUrl === undefined ? createStore({ maxEntries: UPLOAD_STORE_MAX_ENTRIES }) : kv
  const cipher = createTokenCipher(config.tokenKeys)
  app.decorate('kv', kv)
  app.decorate('uploadKv', uploadKv)
  app.decorate<Redis | Cluster | undefined>('redisClient', kv.redisClient)
  app.decorate('cipher', cipher)
  app.decorate('grants', createGrantStore(kv, cipher, { ttlMs: config.session.absoluteTimeoutMs }))
  app.decorate('loginTransactions', createLoginTransactions({
    cipher,
    store: kv,
    states: createLoginStateSigner(config.session.secrets),
    cookiePrefix: `${config.session.cookieName}-login-`,
    ttlMs: config.session.loginTimeoutMs,
    maxPerBrowser: config.session.maxLoginsPerBrowser
  }))
  app.decorate('registrations', createRegistrations(uploadKv))
  app.addHook('onClose', async () => {
    await kv.close()
    if (uploadKv !== kv) await uploadKv.close()
  })
}, { name: 'stores', dependencies: ['config'] })
