// The stores (memory or Redis, one per family: src/store/store-families.ts), the token cipher,
// and the records built on them: sessions (the store @fastify/session uses) and each person's
// index of them, login transactions (sealed into the browser's cookies; the store only marks used
// ones), grants and upload registrations.
import fp from 'fastify-plugin'
import { createStoreFamilies, type StoreFamilies } from '../src/store/store-families.js'
import { createTokenCipher, type TokenCipher } from '../src/store/token-cipher.js'
import { createGrantStore, type GrantStore, type StoredGrant } from '../src/grants/grant-store.js'
import { createLoginTransactions, type LoginTransactions } from '../src/sign-in/login-transactions.js'
import { createLoginStateSigner } from '../src/sign-in/login-state.js'
import { createRegistrations, type Registrations } from '../src/uploads/registrations.js'
import { createSessionStore, type SessionStore } from '../src/store/session-store.js'
import { createSessionIndex } from '../src/sessions/session-index.js'
import { createPersonSessions, type PersonSessions } from '../src/sessions/person-sessions.js'
import { budgetKeyOf, recordLifetimeMs, type SessionRecord } from '../src/sessions/signed-in.js'
import { createSessionEpochs, type SessionEpochs } from '../src/sessions/session-epochs.js'
import { createSessionCore, type SessionCore } from '../src/sessions/session-core.js'
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
    cipher: TokenCipher
    grants: GrantStore
    loginTransactions: LoginTransactions
    registrations: Registrations
    /** The records behind @fastify/session (plugins/session.ts). */
    sessionStore: SessionStore<SessionRecord>
    /** Each person's epoch: dropped after every change to their sessions or grants (src/sessions/session-epochs.ts). */
    sessionEpochs: SessionEpochs
    /** Opens a request's session in one exchange when this replica keeps a copy of it (src/sessions/session-core.ts). */
    sessionCore: SessionCore<StoredGrant>
    /** Each person's sessions: listed, ended one by one or all at once, on every instance. */
    personSessions: PersonSessions
    /** Whose files media-bff saw finished, for the webhooks about them. */
    uploadedFiles: UploadedFiles
  }
}

/** Sessions one person may hold at once; a sign-in beyond it ends their oldest. */
export const MAX_SESSIONS_PER_PERSON = 50

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
  const cipher = createTokenCipher(config.tokenKeys)
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
  app.decorate('cipher', cipher)
  const epochs = createSessionEpochs(stores.checks, { lifetimeMs: config.session.absoluteTimeoutMs })
  app.decorate('sessionEpochs', epochs)
  app.decorate('grants', createGrantStore(stores.people, cipher, { ttlMs: config.session.absoluteTimeoutMs, changed: epochs.changed }))
  app.decorate('loginTransactions', createLoginTransactions({
    cipher,
    store: stores.signIns,
    states: createLoginStateSigner(config.session.secrets),
    cookiePrefix: `${config.session.cookieName}-login-`,
    ttlMs: config.session.loginTimeoutMs,
    maxPerBrowser: config.session.maxLoginsPerBrowser,
    defaultTenant: config.defaultTenant
  }))
  app.decorate('registrations', createRegistrations(stores.uploads))
  const timeouts = config.session
  const sessionStore = createSessionStore<SessionRecord>(stores.people, {
    // The blob holds the grant id and the user's name and e-mail: sealed like the tokens.
    cipher,
    // A browser-session cookie: the server's timeouts, not the cookie, end a session.
    storeCookie: false,
    ttlMs: (session) => recordLifetimeMs(session, timeouts, app.clock()),
    changed: async (session) => {
      const budgetKey = budgetKeyOf(session)
      if (budgetKey !== undefined) await epochs.changed(budgetKey)
    }
  })
  app.decorate('sessionStore', sessionStore)
  app.decorate('sessionCore', createSessionCore({ epochs, readSession: sessionStore.load, readGrant: app.grants.read }))
  app.decorate('uploadedFiles', createUploadedFiles(stores.finishes))
  app.decorate('personSessions', createPersonSessions({
    index: createSessionIndex(stores.people, { lifetimeMs: timeouts.absoluteTimeoutMs }),
    readSession: async (sid) => sessionRecordOf(await sessionStore.load(sid)),
    destroySession: sessionStore.drop,
    deleteGrant: async (grantId) => { await app.grants.delete(grantId) },
    timeouts,
    now: app.clock,
    maxPerPerson: MAX_SESSIONS_PER_PERSON
  }))
  app.addHook('onClose', async () => {
    await stores.close()
  })
}, { name: 'stores', dependencies: ['config', 'metrics'] })

/** A stored session as a record to check (src/sessions/signed-in.ts checks every field it reads). */
function sessionRecordOf (loaded: unknown): SessionRecord | undefined {
  return loaded !== null && typeof loaded === 'object' ? loaded : undefined
}
