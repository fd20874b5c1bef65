// The session records behind @fastify/session (src/store/session-store.ts), on memory and on a
// real Redis: sealed, expiring with the session, read back frozen with the text they were read
// as, and saved by compare-and-set against it, so an ending is never undone by a request that
// read the session before it, and a save that changes nothing writes nothing.
import { Redis } from 'ioredis'
import t from 'tap'
import { StoreUnavailableError, type KeyValueStore } from '../../src/store/key-value-store.js'
import { createMemoryStore } from '../../src/store/memory-store.js'
import { createRedisStore } from '../../src/store/redis-store.js'
import { AS_STORED, createSessionStore } from '../../src/store/session-store.js'
import { createTokenCipher, generateTokenKey, parseTokenKeys } from '../../src/store/token-cipher.js'
import { startRedis } from '../helpers/redis.js'

const USER_NAME = 'Ada Lovelace of the session-store test'
const cipher = createTokenCipher(parseTokenKeys(generateTokenKey('s1')))

const redis = await startRedis()
t.teardown(() => redis.destroy())
const raw = new Redis(redis.url)
t.teardown(() => { raw.disconnect() })

const backends: Array<[string, () => KeyValueStore]> = [
  ['memory', () => createMemoryStore()],
  ['redis', () => createRedisStore({ url: redis.url, keyPrefix: 'sessions-test:' })]
]

type Record = { [field: string]: unknown }

for (const [backend, openStore] of backends) {
  t.test(`on ${backend}: sealed, with its lifetime, read back as it was written`, async (t) => {
    const kv = openStore()
    t.teardown(() => kv.close())
    const store = createSessionStore<Record>(kv, { cipher, ttlMs: () => 600_000 })
    t.equal(await store.save('one', { cookie: { path: '/' }, user: { id: 'u1', name: USER_NAME } }), true, 'a new session is written where there is none')
    const stored = await kv.get('sess:one')
    t.match(stored, /^v1\.s1\./, 'one sealed record under sess:<id>')
    // Long enough that random ciphertext never spells it.
    for (const spelling of [USER_NAME, Buffer.from(USER_NAME).toString('base64url')]) t.notOk(stored?.includes(spelling), 'nothing readable in it')
    if (backend === 'redis') {
      const ttl = await raw.pttl('sessions-test:sess:one')
      t.ok(ttl > 590_000 && ttl <= 600_000, `it lives as long as the session (${ttl} ms)`)
    }
    const read = await store.load('one') as Record
    t.same(read, { user: { id: 'u1', name: USER_NAME }, [AS_STORED]: stored }, 'read back without its cookie, with the text it was read as')
    t.equal(await store.load('one'), read, 'the same record read again is the same object')
    t.ok(Object.isFrozen(read) && Object.isFrozen(read.user), 'frozen all the way down: nobody edits what others share')
    t.equal(await store.load('absent'), undefined)
  })

  t.test(`on ${backend}: a save is a compare-and-set against what was read`, async (t) => {
    const kv = openStore()
    t.teardown(() => kv.close())
    let changes = 0
    const store = createSessionStore<Record>(kv, { cipher, ttlMs: () => 60_000, changed: async () => { changes++ } })
    await store.save('s', { lastSeen: 1 })
    // Sessions as @fastify/session holds them: the record's fields copied into an object of its own.
    const session = { ...await store.load('s') as Record }
    const older = { ...await store.load('s') as Record }
    session.lastSeen = 2
    t.equal(await store.save('s', session), true, 'over the record it read: written')
    t.equal(session[AS_STORED], await kv.get('sess:s'), 'and the saved session now stands for what it wrote')
    session.lastSeen = 3
    t.equal(await store.save('s', session), true, 'so a second save of the same session writes again')
    t.equal(await store.save('s', { ...older, lastSeen: 9 }), false, 'a save from an older reading: refused, the newer write stands')
    t.match(await store.load('s'), { lastSeen: 3 })
    t.equal(await store.save('s', { lastSeen: 5 }), false, 'a session never read is not written over a record')
    changes = 0
    t.equal(await store.save('s', session), false, 'a save that changes nothing writes nothing')
    t.equal(changes, 0, 'and tells no replica of a change')
  })

  t.test(`on ${backend}: a session an ending dropped is never written again by a request that read it before`, async (t) => {
    const kv = openStore()
    t.teardown(() => kv.close())
    const store = createSessionStore<Record>(kv, { cipher, ttlMs: () => 60_000 })
    await store.save('ended', { lastSeen: 1 })
    const inFlight = { ...await store.load('ended') as Record }
    await store.drop('ended')
    t.equal(await store.save('ended', { ...inFlight, lastSeen: 2 }), false, 'its touch as the answer goes out is refused')
    t.equal(await kv.get('sess:ended'), undefined, 'the record stays gone')
  })

  t.test(`on ${backend}: a session past its lifetime is deleted, not written, unless it changed meanwhile`, async (t) => {
    const kv = openStore()
    t.teardown(() => kv.close())
    let lifetime = 60_000
    const store = createSessionStore<Record>(kv, { cipher, ttlMs: () => lifetime })
    await store.save('over', { lastSeen: 1 })
    const read = { ...await store.load('over') as Record }
    const newer = { ...await store.load('over') as Record, lastSeen: 2 }
    await store.save('over', newer)
    lifetime = -1
    await store.save('over', read)
    t.not(await kv.get('sess:over'), undefined, 'an older reading past its lifetime deletes nothing newer')
    await store.save('over', newer)
    t.equal(await kv.get('sess:over'), undefined, 'the current one past its lifetime is deleted')
  })
}

t.test('with a cipher, a record only opens under its own session id; a damaged one reads as none', async (t) => {
  const kv = createMemoryStore()
  t.teardown(() => kv.close())
  const store = createSessionStore<Record>(kv, { cipher, ttlMs: () => 60_000 })
  await store.save('victim', { user: 'ada' })
  const sealed = await kv.get('sess:victim')
  // Read first, so the opened record is remembered: the copy must not be served from memory.
  t.match(await store.load('victim'), { user: 'ada' })
  await kv.set('sess:attacker', sealed ?? '', 60_000)
  t.equal(await store.load('attacker'), undefined, 'a copied record reads as no session')
  await kv.set('sess:damaged', 'not json, not sealed', 60_000)
  t.equal(await store.load('damaged'), undefined, 'a damaged record reads as no session')
})

t.test('a store that fails is StoreUnavailableError; a session that is not JSON is a bug, reported as such', async (t) => {
  const memory = createMemoryStore()
  t.teardown(() => memory.close())
  const failing: KeyValueStore = {
    ...memory,
    get: async () => { throw new Error('socket hang up') },
    compareAndSet: async () => { throw new StoreUnavailableError('down') },
    delete: async () => { throw new StoreUnavailableError('down') }
  }
  const store = createSessionStore<Record>(failing, { ttlMs: () => 60_000 })
  const loading = await store.load('x').catch((error: unknown) => error)
  t.type(loading, StoreUnavailableError, 'an unexpected error is wrapped')
  t.match((loading as Error).cause, { message: 'socket hang up' })
  t.type(await store.save('x', {}).catch((error: unknown) => error), StoreUnavailableError)
  t.type(await store.drop('x').catch((error: unknown) => error), StoreUnavailableError)
  const circular: Record = {}
  circular.self = circular
  t.type(await createSessionStore<Record>(memory, { ttlMs: () => 60_000 }).save('y', circular).catch((error: unknown) => error), TypeError)
})
