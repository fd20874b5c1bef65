// The stores (memory or Redis, one per family: src/store/store-families.ts) and the records built
// on them that are not a session's (plugins/session.ts keeps sessions and their grants): login
// transactions (sealed into the browser's cookies; the store only marks used ones), upload
// registrations, and whose files were finished.
import fp from 'fastify-plugin'
import { createStoreFamilies, type StoreFamilies } from '../src/store/store-families.js'
import { createTokenCipher } from '../src/store/token-cipher.js'
import { createLoginTransactions, type LoginTransactions } from '../src/sign-in/login-transactions.js'
import { createLoginStateSigner } from '../src/sign-in/login-state.js'
import { createRegistrations, type Registrations } from '../src/uploads/registrations.js'
import { createUploadedFiles, type UploadedFiles } from '../src/uploads/uploaded-files.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Every store, by family: people's records are never pushed out by bookkeeping. */
    stores: StoreFamilies
    /**
     * Whether one more sign-in may take room now (the people's stores below their bound, or Redis
     * below its sign-in ceiling). When there is none, a new sign-in is refused; nobody signed in
     * is ever dropped for it. Logged once when room runs out, and once when it is back.
     */
    roomForSignIn: () => Promise<boolean>
    loginTransactions: LoginTransactions
    registrations: Registrations
    /** Whose files media-bff saw finished, for the webhooks about them. */
    uploadedFiles: UploadedFiles
  }
}

export default fp(async (app) => {
  const { config } = app
  const stores = createStoreFamilies({
    redisUrl: config.redisUrl,
    keyPrefix: config.redisKeyPrefix,
    tlsCa: config.redisTlsCa,
    maxSessions: config.memoryMaxSessions,
    now: app.clock,
    logger: app.log
  })
  app.decorate('stores', stores)
  app.metrics.gaugeByLabel('media_bff_store_entries', 'Entries in each in-memory store (without REDIS_URL): people, checks, locks, sign_ins, uploads, finishes, webhooks', 'store', () => stores.sizes())
  // What /readyz checks, read as Prometheus scrapes: an alert on it needs no probe of its own.
  app.metrics.gauge('media_bff_store_up', 'Whether the store (Redis, or memory) answered a ping as this scrape ran: 1, or 0 (as /readyz checks)', async () => await stores.ping().then(() => 1, () => 0))
  app.metrics.gauge('media_bff_redis_memory_fullness', 'The fullest Redis master\'s used share of its maxmemory (absent without maxmemory): webhooks stop at 0.7, upload registrations and finishes at 0.8, new sign-ins at 0.9', async () => await stores.fullness().catch(() => undefined))
  let refusing = false
  app.decorate('roomForSignIn', async () => {
    const room = await stores.roomForSignIn()
    if (room === refusing) {
      refusing = !room
      if (refusing) app.log.warn({ sizes: stores.sizes(), fullness: await stores.fullness() }, 'new sign-ins are refused: the stores hold all the signed-in people they may (MEMORY_MAX_SESSIONS, or Redis near maxmemory); nobody signed in is dropped')
      else app.log.info('new sign-ins are taken again: the stores have room')
    }
    return room
  })
  app.decorate('loginTransactions', createLoginTransactions({
    // Sealed like the tokens: a transaction holds the PKCE verifier.
    cipher: createTokenCipher(config.tokenKeys),
    store: stores.signIns,
    states: createLoginStateSigner(config.session.secrets),
    cookiePrefix: `${config.session.cookieName}-login-`,
    ttlMs: config.session.loginTimeoutMs,
    maxPerBrowser: config.session.maxLoginsPerBrowser,
    defaultTenant: config.defaultTenant
  }))
  app.decorate('registrations', createRegistrations(stores.uploads))
  app.decorate('uploadedFiles', createUploadedFiles(stores.finishes))
  app.addHook('onClose', async () => {
    await stores.close()
  })
}, { name: 'stores', dependencies: ['config', 'metrics'] })
