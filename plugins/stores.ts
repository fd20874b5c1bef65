// The key-value store (memory or Redis), the token cipher, and the records built on them:
// login transactions, grants and upload registrations.
import fp from 'fastify-plugin'
import { createStore } from '../src/store/create-store.js'
import type { KeyValueStore } from '../src/store/key-value-store.js'
import { createTokenCipher, type TokenCipher } from '../src/store/token-cipher.js'
import { createGrantStore, type GrantStore } from '../src/grants/grant-store.js'
import { createLoginTransactions, type LoginTransactions } from '../src/oauth/login-transactions.js'
import { createRegistrations, type Registrations } from '../src/uploads/registrations.js'

declare module 'fastify' {
  interface FastifyInstance {
    kv: KeyValueStore
    /** Short-lived records (login transactions, rate-limit counters). */
    ephemeralKv: KeyValueStore
    cipher: TokenCipher
    grants: GrantStore
    loginTransactions: LoginTransactions
    registrations: Registrations
  }
}

export default fp(async (app) => {
  const { config } = app
  const kv = createStore({ redisUrl: config.redisUrl, keyPrefix: config.redisKeyPrefix, logger: app.log })
  // In memory, short-lived records get a bounded store of their own, so a flood of sign-in
  // attempts or rate-limit counters can never evict real sessions. Redis holds both.
  const ephemeralKv = config.redisUrl === undefined ? createStore({}) : kv
  const cipher = createTokenCipher(config.tokenKeys)
  app.decorate('kv', kv)
  app.decorate('ephemeralKv', ephemeralKv)
  app.decorate('cipher', cipher)
  app.decorate('grants', createGrantStore(kv, cipher, { ttlMs: config.session.absoluteTimeoutMs }))
  app.decorate('loginTransactions', createLoginTransactions(ephemeralKv, cipher, { ttlMs: config.session.loginTimeoutMs }))
  app.decorate('registrations', createRegistrations(kv))
  app.addHook('onClose', async () => {
    await kv.close()
    if (ephemeralKv !== kv) await ephemeralKv.close()
  })
}, { name: 'stores', dependencies: ['config'] })
