// The session core (src/sessions/session-core.ts) over one store shared by two replicas, A and B,
// as two media-bff instances share Redis: a session B keeps opens in one exchange, and every
// change made on A (an ending, a refresh, a write) is seen on B's next request. Run on memory,
// a single Redis, Sentinel and Cluster.
import { randomUUID } from 'node:crypto'
import type { Test } from 'tap'
import { StoreFullError, type KeyValueStore } from '../../src/store/key-value-store.js'
import { createTokenCipher, parseTokenKeys } from '../../src/store/token-cipher.js'
import { createSessionStore } from '../../src/store/session-store.js'
import { createGrantStore } from '../../src/grants/grant-store.js'
import { createSessionEpochs } from '../../src/sessions/session-epochs.js'
import { createSessionCore, MAX_AGE_MS } from '../../src/sessions/session-core.js'
import { budgetKeyOf, personBudgetKey, type SessionRecord } from '../../src/sessions/signed-in.js'
import { RECORD_FORMAT } from '../../src/store/record-format.js'
import { testTokenKey } from '../helpers/bff.js'

const LIFETIME_MS = 60_000

export function sessionCoreBehaviour (t: Test, openStore: () => KeyValueStore): void {
  const kv = openStore()
  t.teardown(() => kv.close())
  // Every call to the store, to count a request's exchanges.
  let calls = 0
  const counted = new Proxy(kv, {
    get (target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        calls++
        return (value as (...a: unknown[]) => unknown).apply(target, args)
      }
    }
  })
  const cipher = createTokenCipher(parseTokenKeys(testTokenKey()))
  const epochs = createSessionEpochs(counted, { lifetimeMs: LIFETIME_MS })
  const sessions = createSessionStore<SessionRecord>(counted, {
    cipher,
    ttlMs: () => LIFETIME_MS,
    changed: async (session) => {
      const budgetKey = budgetKeyOf(session)
      if (budgetKey !== undefined) await epochs.changed(budgetKey)
    }
  })
  const grants = createGrantStore(counted, cipher, { ttlMs: LIFETIME_MS, changed: epochs.changed })
  const replica = (now?: () => number) => createSessionCore({ epochs, readSession: sessions.load, readGrant: grants.read, ...(now === undefined ? {} : { now }) })
  /** Writes a new session's record, or (given the record read, with its asStored) a change to it. */
  const save = async (sid: string, record: SessionRecord): Promise<void> => {
    if (!await sessions.save(sid, record)) throw new Error('the record changed meanwhile, or was never read')
  }
  /** A write on another replica: the record read there, then written with these fields changed. */
  const change = async (sid: string, fields: SessionRecord): Promise<void> => {
    await save(sid, { ...await sessions.load(sid) as SessionRecord, ...fields })
  }
  const exchanges = async <T>(work: () => Promise<T>): Promise<{ result: T, exchanges: number }> => {
    calls = 0
    const result = await work()
    return { result, exchanges: calls }
  }

  /** A signed-in session as the callback makes one; `known: false` leaves the user id out. */
  const signIn = async ({ known = true } = {}) => {
    const userId = known ? `user-${randomUUID()}` : undefined
    const grant = await grants.create({ tenant: 'default', userId, accessToken: `access-${randomUUID()}`, refreshToken: 'r', expiresAt: Date.now() + 60_000, scopes: ['basic'] })
    const sid = randomUUID()
    const now = Date.now()
    const record: SessionRecord = { format: RECORD_FORMAT, grantId: grant.id, tenant: 'default', user: { id: userId, name: 'N', email: undefined }, handle: randomUUID(), authenticatedAt: now, lastSeen: now }
    await save(sid, record)
    return { sid, record, grant, budgetKey: userId === undefined ? undefined : personBudgetKey({ tenant: 'default', userId }) }
  }

  /** A signed-in session both replicas have served, so both hold a copy, and the grant A opened. */
  const servedOnBoth = async () => {
    const a = replica()
    const b = replica()
    const signedIn = await signIn()
    const opened = await a.open(signedIn.sid)
    await b.open(signedIn.sid)
    if (opened.grant === undefined) throw new Error('no grant opened')
    return { a, b, ...signedIn, opened: opened.grant }
  }

  t.test('a session kept here opens in one exchange, with its grant and the request\'s count', async (t) => {
    const b = replica()
    const { sid, grant } = await signIn()
    const first = await exchanges(async () => await b.open(sid, { limit: 'api', windowMs: 60_000 }))
    t.equal(first.exchanges, 4, 'the first time: the record, the epoch with the count, the record again and the grant')
    t.equal(first.result.grant?.grant.id, grant.id)
    t.same(first.result.counted?.count, 1)
    for (let i = 2; i <= 4; i++) {
      const next = await exchanges(async () => await b.open(sid, { limit: 'api', windowMs: 60_000 }))
      t.equal(next.exchanges, 1, `request ${i}: one exchange`)
      t.equal(next.result.record?.grantId, grant.id)
      t.equal(next.result.grant?.grant.accessToken, grant.accessToken)
      t.equal(next.result.counted?.count, i, 'counted with it')
    }
    t.equal((await exchanges(async () => await b.open(sid))).exchanges, 1, 'a route without a limit: one exchange too')
  })

  t.test('an ending on A is seen on B\'s next request', async (t) => {
    const { a, b, sid, record, budgetKey } = await servedOnBoth()
    // Deleted without the news: B still serves its copy, which is what the epoch is there for.
    await sessions.drop(sid)
    t.not((await b.open(sid)).record, undefined, 'without the epoch replaced, B does not know')
    if (budgetKey !== undefined) await epochs.changed(budgetKey)
    t.equal((await b.open(sid)).record, undefined, 'with it, B reads the session again and finds it gone')
    t.equal((await a.open(sid)).record, undefined, 'and so does A')
    t.equal(record.handle !== undefined, true)
  })

  t.test('a refresh on A reaches B with the new tokens', async (t) => {
    const { b, sid, opened } = await servedOnBoth()
    const refreshed = await grants.replace(opened, { accessToken: 'refreshed', refreshedAt: Date.now() })
    t.not(refreshed, undefined)
    t.equal((await b.open(sid)).grant?.grant.accessToken, 'refreshed')
  })

  t.test('a session written on A (a touch, a denied scope) reaches B', async (t) => {
    const { b, sid, record } = await servedOnBoth()
    await change(sid, { lastSeen: record.lastSeen as number + 1000, deniedScopes: ['share'] })
    const seen = (await b.open(sid)).record
    t.same([seen?.lastSeen, seen?.deniedScopes], [record.lastSeen as number + 1000, ['share']])
  })

  t.test(`a copy is read again after ${MAX_AGE_MS} ms even when nothing said it changed`, async (t) => {
    let now = Date.now()
    const b = replica(() => now)
    const { sid } = await signIn()
    await b.open(sid)
    await kv.delete(`sess:${sid}`)
    t.not((await b.open(sid)).record, undefined, 'within its age: the copy')
    now += MAX_AGE_MS
    t.equal((await b.open(sid)).record, undefined, 'past it: read again')
  })

  t.test('a refresh refused on A (its grant ended) reaches B', async (t) => {
    const { b, sid, opened } = await servedOnBoth()
    await grants.deleteIfUnchanged(opened)
    const seen = await b.open(sid)
    t.not(seen.record, undefined, 'the session is still there')
    t.equal(seen.grant, undefined, 'its grant is not: B learns it is gone')
  })

  t.test('an epoch dropped or lost comes back as a value never used before, and copies are read again', async (t) => {
    const b = replica()
    const { sid, budgetKey } = await signIn()
    if (budgetKey === undefined) throw new Error('no person')
    const before = await epochs.read(budgetKey)
    await b.open(sid)
    await epochs.changed(budgetKey)
    const after = await epochs.read(budgetKey)
    t.not(after.value, before.value, 'a new epoch')
    const again = await exchanges(async () => await b.open(sid))
    t.ok(again.exchanges > 1, `B reads the session again (${again.exchanges} exchanges)`)
    t.equal((await exchanges(async () => await b.open(sid))).exchanges, 1, 'then keeps it again')
  })

  for (const when of ['before', 'after'] as const) {
    t.test(`a write on A just ${when} B reads the epoch of a session it opens is never kept stale`, async (t) => {
      const { sid, budgetKey } = await signIn()
      if (budgetKey === undefined) throw new Error('no person')
      let reads = 0
      const racing: typeof epochs = {
        changed: epochs.changed,
        read: async (key, counting) => {
          const first = ++reads === 1
          if (first && when === 'before') await change(sid, { deniedScopes: ['manage'] })
          const read = await epochs.read(key, counting)
          if (first && when === 'after') await change(sid, { deniedScopes: ['manage'] })
          return read
        }
      }
      const b = createSessionCore({ epochs: racing, readSession: sessions.load, readGrant: grants.read })
      await b.open(sid)
      t.same((await b.open(sid)).record?.deniedScopes, ['manage'], 'the next request sees the write')
      t.same((await b.open(sid)).record?.deniedScopes, ['manage'], 'and the one after')
    })
  }

  t.test('a session ended here is forgotten at once', async (t) => {
    const b = replica()
    const { sid } = await signIn()
    await b.open(sid)
    t.equal(b.size, 1)
    b.forget(sid)
    t.equal(b.size, 0)
  })

  t.test('a session of nobody known is read on every request, and still counted', async (t) => {
    const b = replica()
    const { sid } = await signIn({ known: false })
    await b.open(sid)
    const again = await exchanges(async () => await b.open(sid, { limit: 'api', windowMs: 60_000 }))
    t.ok(again.exchanges > 1, `read again (${again.exchanges} exchanges)`)
    t.equal(again.result.counted?.count, 1, 'counted against its sign-in')
    t.not(again.result.record, undefined)
  })

  t.test('no cookie\'s session: nothing counted, nothing kept', async (t) => {
    const b = replica()
    const opened = await b.open(randomUUID(), { limit: 'api', windowMs: 60_000 })
    t.same(opened, { record: undefined, grant: undefined, counted: undefined })
    t.equal(b.size, 0)
  })

  t.test('under load: once an ending on A is done, no request B starts gets the session', async (t) => {
    const a = replica()
    const b = replica()
    const { sid, budgetKey } = await signIn()
    await b.open(sid)
    let ended = false
    let servedAfter = 0
    let served = 0
    let openedAfter = 0
    // Each keeps opening until it has opened ten times since the ending was done.
    const serving = Array.from({ length: 8 }, async () => {
      for (let mine = 0; mine < 10;) {
        // A turn of the event loop each time, as requests arrive, so the ending can run between.
        await new Promise((resolve) => setImmediate(resolve))
        const startedAfterEnding = ended
        const { record } = await b.open(sid, { limit: 'api', windowMs: 60_000 })
        if (record !== undefined) served++
        if (startedAfterEnding) {
          mine++
          openedAfter++
          if (record !== undefined) servedAfter++
        }
      }
    })
    const ending = (async () => {
      const servedEnough = (): boolean => served >= 40
      while (!servedEnough()) await new Promise((resolve) => setImmediate(resolve))
      const { grant } = await a.open(sid)
      await sessions.drop(sid)
      if (grant !== undefined) await grants.delete(grant.grant.id)
      if (budgetKey !== undefined) await epochs.changed(budgetKey)
      ended = true
    })()
    await Promise.all([...serving, ending])
    t.ok(served >= 40, `B served it ${served} times before`)
    t.equal(openedAfter, 80, 'B went on opening it after the ending')
    t.equal(servedAfter, 0, 'and never once got it')
  })
}

/** A store whose counting scripts are refused, as Redis at maxmemory refuses scripts that write. */
export function fullForWrites (store: KeyValueStore): KeyValueStore {
  return { ...store, readAndCount: async () => { throw new StoreFullError('OOM command not allowed') } }
}
