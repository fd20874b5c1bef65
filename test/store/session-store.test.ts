import Fastify, { type FastifyInstance } from 'fastify'
import fastifyCookie from '@fastify/cookie'
import fastifySession from '@fastify/session'
import { Redis } from 'ioredis'
import t from 'tap'
import { StoreUnavailableError, type KeyValueStore } from '../../src/store/key-value-store.js'
import { createMemoryStore } from '../../src/store/memory-store.js'
import { createRedisStore } from '../../src/store/redis-store.js'
import { createSessionStore, type SessionStore } from '../../src/store/session-store.js'
import { createTokenCipher, generateTokenKey, parseTokenKeys } from '../../src/store/token-cipher.js'
import { startRedis } from '../helpers/redis.js'

const USER_NAME = 'Ada Lovelace of the session-store test'

const cipher = createTokenCipher(parseTokenKeys(generateTokenKey('s1')))

/** The adapter's callbacks as promises (what @fastify/session does with them, minus the plugin). */
function promised<S extends object> (store: SessionStore<S>) {
  return {
    set: async (id: string, session: S) => await new Promise<void>((resolve, reject) => store.set(id, session, (error) => error == null ? resolve() : reject(error))),
    get: async (id: string) => await new Promise<unknown>((resolve, reject) => store.get(id, (error, session) => error == null ? resolve(session) : reject(error))),
    destroy: async (id: string) => await new Promise<void>((resolve, reject) => store.destroy(id, (error) => error == null ? resolve() : reject(error)))
  }
}

async function buildApp (kv: KeyValueStore, cookieMaxAge?: number): Promise<FastifyInstance> {
  const app = Fastify()
  app.setErrorHandler((error, _request, reply) => {
    return reply.code(error instanceof StoreUnavailableError ? 503 : 500).send({ error: error instanceof Error ? error.name : 'unknown' })
  })
  await app.register(fastifyCookie)
  await app.register(fastifySession, {
    secret: 'a-session-secret-of-at-least-32-characters',
    cookieName: 'sid',
    saveUninitialized: false,
    cookie: { secure: false, ...(cookieMaxAge === undefined ? {} : { maxAge: cookieMaxAge }) },
    store: createSessionStore(kv, { cipher, defaultTtlMs: 30_000 })
  })
  // Plain property access: the test must not add fields to the application's Session type.
  const data = (session: unknown): Record<string, unknown> => session as Record<string, unknown>
  app.post('/login', async (request) => {
    data(request.session).user = { id: 'u1', name: USER_NAME }
    data(request.session).loggedInAt = 1_700_000_000_000
    return { ok: true }
  })
  app.get('/me', async (request) => ({ user: data(request.session).user ?? null, loggedInAt: data(request.session).loggedInAt ?? null }))
  app.post('/logout', async (request) => {
    await request.session.destroy()
    return { ok: true }
  })
  return app
}

function sessionIdOf (cookie: string): string {
  return cookie.slice(0, cookie.lastIndexOf('.'))
}

const redis = await startRedis()
t.teardown(() => redis.destroy())
const raw = new Redis(redis.url)
t.teardown(() => { raw.disconnect() })

const backends: Array<[string, () => KeyValueStore]> = [
  ['memory', () => createMemoryStore()],
  ['redis', () => createRedisStore({ url: redis.url, keyPrefix: 'sessions-test:' })]
]

for (const [backend, openStore] of backends) {
  t.test(`with @fastify/session on the ${backend} store`, async (t) => {
    const kv = openStore()
    t.teardown(() => kv.close())
    const app = await buildApp(kv, 600_000)
    t.teardown(() => app.close())

    const login = await app.inject({ method: 'POST', url: '/login' })
    t.equal(login.statusCode, 200)
    const cookie = login.cookies.find((c) => c.name === 'sid')?.value
    if (cookie === undefined) throw new Error('no session cookie')
    const id = sessionIdOf(cookie)

    const stored = await kv.get(`sess:${id}`)
    t.match(stored, /^v1\.s1\./, 'one sealed record under sess:<id>')
    // Long enough that random ciphertext never spells it (a three-letter name did, one run in a thousand).
    for (const spelling of [USER_NAME, Buffer.from(USER_NAME).toString('base64url')]) t.notOk(stored?.includes(spelling), 'nothing readable in it')
    if (backend === 'redis') {
      const ttl = await raw.pttl(`sessions-test:sess:${id}`)
      t.ok(ttl > 590_000 && ttl <= 600_000, `the record lives as long as the cookie (${ttl} ms)`)
    }

    const me = await app.inject({ method: 'GET', url: '/me', cookies: { sid: cookie } })
    t.same(me.json(), { user: { id: 'u1', name: USER_NAME }, loggedInAt: 1_700_000_000_000 }, 'the session comes back on the next request')
    t.equal((await app.inject({ method: 'GET', url: '/me' })).json().user, null, 'not without the cookie')

    const logout = await app.inject({ method: 'POST', url: '/logout', cookies: { sid: cookie } })
    t.equal(logout.statusCode, 200)
    t.equal(await kv.get(`sess:${id}`), undefined, 'logout deleted the record')
    t.equal((await app.inject({ method: 'GET', url: '/me', cookies: { sid: cookie } })).json().user, null)
  })
}

t.test('a store that is down reaches @fastify/session as StoreUnavailableError (503 here)', async (t) => {
  const kv = createMemoryStore()
  const app = await buildApp(kv)
  t.teardown(() => app.close())
  const login = await app.inject({ method: 'POST', url: '/login' })
  const cookie = login.cookies.find((c) => c.name === 'sid')?.value ?? ''
  await kv.close()
  const me = await app.inject({ method: 'GET', url: '/me', cookies: { sid: cookie } })
  t.equal(me.statusCode, 503)
  t.same(me.json(), { error: 'StoreUnavailableError' })
  const again = await app.inject({ method: 'POST', url: '/login' })
  t.equal(again.statusCode, 503, 'saving a new session fails the same way')
})

t.test('what get returns is what JSON keeps of the Session, cookie included', async (t) => {
  const kv = createMemoryStore()
  t.teardown(() => kv.close())
  const store = promised(createSessionStore(kv))
  const expires = new Date(Date.now() + 60_000)
  // The shape @fastify/session's Cookie serialises to (its toJSON), with a Date inside.
  const cookie = { expires, originalMaxAge: 60_000, path: '/', httpOnly: true, toJSON () { return { expires: this.expires, originalMaxAge: this.originalMaxAge, path: this.path, httpOnly: this.httpOnly } } }
  await store.set('abc', { cookie, user: { id: 'u1' }, list: [1, 2] })
  t.same(await store.get('abc'), {
    cookie: { expires: expires.toISOString(), originalMaxAge: 60_000, path: '/', httpOnly: true },
    user: { id: 'u1' },
    list: [1, 2]
  })
  t.equal(await store.get('missing'), undefined, 'absent: undefined, like MemoryStore')
})

t.test('storeCookie: false keeps everything but the cookie, and leaves the session as it was', async (t) => {
  const kv = createMemoryStore()
  t.teardown(() => kv.close())
  const store = promised(createSessionStore(kv, { storeCookie: false, ttlMs: () => 60_000 }))
  const session = { cookie: { path: '/', httpOnly: true }, user: { id: 'u1' }, list: [1, 2] }
  await store.set('abc', session)
  t.same(await store.get('abc'), { user: { id: 'u1' }, list: [1, 2] })
  t.same(session.cookie, { path: '/', httpOnly: true }, 'the cookie is put back')
  t.notMatch(await kv.get('sess:abc') ?? '', 'httpOnly', 'nothing of the cookie stored')
})

t.test('the TTL follows the cookie, else the default, else the ttlMs option', async (t) => {
  const redisKv = createRedisStore({ url: redis.url, keyPrefix: 'ttl-test:' })
  t.teardown(() => redisKv.close())
  const ttlOf = async (id: string): Promise<number> => await raw.pttl(`ttl-test:sess:${id}`)

  const byCookie = promised(createSessionStore(redisKv, { defaultTtlMs: 5000 }))
  await byCookie.set('max-age', { cookie: { maxAge: 40_000 } })
  t.ok(await ttlOf('max-age') > 39_000, 'cookie.maxAge')
  await byCookie.set('expires', { cookie: { expires: new Date(Date.now() + 50_000).toISOString() } })
  t.ok(await ttlOf('expires') > 49_000, 'cookie.expires (string or Date)')
  await byCookie.set('browser-session', { cookie: { expires: null, maxAge: null } })
  const fallback = await ttlOf('browser-session')
  t.ok(fallback > 4000 && fallback <= 5000, 'defaultTtlMs for a cookie without a lifetime')

  const custom = promised(createSessionStore<{ loginAt: number }>(redisKv, { ttlMs: (session) => session.loginAt + 70_000 - Date.now() }))
  await custom.set('custom', { loginAt: Date.now() })
  t.ok(await ttlOf('custom') > 69_000, 'ttlMs option')

  await byCookie.set('over', { cookie: { maxAge: 60_000 } })
  await byCookie.set('over', { cookie: { maxAge: -1 } })
  t.equal(await byCookie.get('over'), undefined, 'a session past its lifetime is deleted, not written')
})

t.test('with a cipher, a record only opens under its own session id', async (t) => {
  const kv = createMemoryStore()
  t.teardown(() => kv.close())
  const store = promised(createSessionStore(kv, { cipher }))
  await store.set('victim', { user: 'ada' })
  const sealed = await kv.get('sess:victim')
  t.match(sealed, /^v1\./)
  // Read first, so the opened record is remembered: the copy must not be served from memory.
  t.same(await store.get('victim'), { user: 'ada' })
  await kv.set('sess:attacker', sealed ?? '', 60_000)
  t.equal(await store.get('attacker'), undefined, 'a copied record reads as no session')
  await kv.set('sess:damaged', 'not json, not sealed', 60_000)
  t.equal(await store.get('damaged'), undefined, 'a damaged record reads as no session')
  t.same(await store.get('victim'), { user: 'ada' })
})

t.test('a stored record is opened once and shared, frozen; a new record is opened anew', async (t) => {
  const kv = createMemoryStore()
  t.teardown(() => kv.close())
  const store = promised(createSessionStore(kv, { cipher }))
  await store.set('s', { user: { name: 'ada' }, lastSeen: 1 })
  const first = await store.get('s') as { user: { name: string } }
  t.equal(await store.get('s'), first, 'the same record read again is the same object')
  t.ok(Object.isFrozen(first) && Object.isFrozen(first.user), 'frozen all the way down: nobody edits what others share')
  await store.set('s', { user: { name: 'ada' }, lastSeen: 2 })
  t.same(await store.get('s'), { user: { name: 'ada' }, lastSeen: 2 }, 'a write is a new record, read as written')
})

t.test('callbacks: always later, failures as StoreUnavailableError', async (t) => {
  const memory = createMemoryStore()
  t.teardown(() => memory.close())
  const failing: KeyValueStore = {
    ...memory,
    get: async () => { throw new Error('socket hang up') },
    set: async () => { throw new StoreUnavailableError('down') },
    delete: async () => { throw new StoreUnavailableError('down') }
  }
  const store = createSessionStore(failing)
  let calledSynchronously = true
  const errors: unknown[] = []
  await new Promise<void>((resolve) => {
    store.get('x', (error) => { errors.push(error); resolve() })
    calledSynchronously = false
  })
  t.equal(calledSynchronously, false, 'the callback runs after get returned')
  t.type(errors[0], StoreUnavailableError, 'an unexpected error is wrapped')
  t.match((errors[0] as Error).cause, { message: 'socket hang up' })
  const setError = await new Promise((resolve) => store.set('x', {}, resolve))
  t.type(setError, StoreUnavailableError)
  const destroyError = await new Promise((resolve) => store.destroy('x', resolve))
  t.type(destroyError, StoreUnavailableError)

  const circular: Record<string, unknown> = {}
  circular.self = circular
  const serialiseError = await new Promise((resolve) => createSessionStore(memory).set('y', circular, resolve))
  t.type(serialiseError, TypeError, 'a session that is not JSON is reported, not thrown')
})
