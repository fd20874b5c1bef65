// The contract of the per-person session index (src/sessions/), written once and run on every
// store backend: memory and single Redis (person-sessions.test.ts), Sentinel and Cluster
// (test/store/redis-topologies.test.ts). Real session records and grants, sealed as in the app.
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Test } from 'tap'
import type { KeyValueStore } from '../../src/store/key-value-store.js'
import { createTokenCipher, parseTokenKeys } from '../../src/store/token-cipher.js'
import { createSessionStore } from '../../src/store/session-store.js'
import { createGrantStore } from '../../src/grants/grant-store.js'
import { createSessionIndex, newSessionHandle, personIndexKey } from '../../src/sessions/session-index.js'
import { createPersonSessions } from '../../src/sessions/person-sessions.js'
import { personBudgetKey, type SessionRecord } from '../../src/sessions/signed-in.js'
import { testTokenKey } from '../helpers/bff.js'

const IDLE_MS = 400
const ABSOLUTE_MS = 60_000

export function personSessionsBehaviour (t: Test, openStore: () => KeyValueStore, { maxPerPerson = 5 } = {}): void {
  const kv = openStore()
  t.teardown(() => kv.close())
  const cipher = createTokenCipher(parseTokenKeys(testTokenKey()))
  const sessions = createSessionStore<{ authenticatedAt?: number }>(kv, { cipher, ttlMs: () => IDLE_MS })
  const grants = createGrantStore(kv, cipher, { ttlMs: ABSOLUTE_MS })
  const index = createSessionIndex(kv, { lifetimeMs: ABSOLUTE_MS })
  /** While set, deleting a grant fails, as with the store away a moment after a record was deleted. */
  let grantsFail = false
  const leftBehind: string[] = []
  const people = createPersonSessions({
    index,
    readSession: async (sid) => await sessions.load(sid) as SessionRecord | undefined,
    destroySession: sessions.drop,
    deleteGrant: async (id) => {
      if (grantsFail) throw new Error('the store is away')
      await grants.delete(id)
    },
    timeouts: { idleTimeoutMs: IDLE_MS, absoluteTimeoutMs: ABSOLUTE_MS },
    maxPerPerson,
    leftBehind: (what) => { leftBehind.push(what) }
  })
  // A person of their own per test, so suites may share one Redis.
  const newPerson = () => ({ tenant: 'default', userId: `user-${randomUUID()}` })

  /** A signed-in session as the callback makes one: a grant, a session record, an index entry. */
  const signIn = async (person: { tenant: string, userId: string }, createdAt = Date.now(), replacing?: string) => {
    const grant = await grants.create({ tenant: person.tenant, userId: person.userId, accessToken: 'a', refreshToken: 'r', expiresAt: Date.now() + 60_000, scopes: ['basic'] })
    const sid = randomUUID()
    const handle = newSessionHandle()
    await sessions.save(sid, { authenticatedAt: createdAt, lastSeen: Date.now(), grantId: grant.id } as never)
    const ended = await people.recordSignIn(person, handle, { sid, grantId: grant.id, createdAt, device: 'Firefox on Linux', network: '192.0.2.0/24' }, replacing)
    return { sid, handle, grantId: grant.id, ended }
  }
  /** A request using the session: its record read, then written with lastSeen moved on (or nothing, when it has gone). */
  const touch = async (sid: string, grantId: string, createdAt: number) => {
    const current = await sessions.load(sid) as object | undefined
    await sessions.save(sid, { ...current, authenticatedAt: createdAt, lastSeen: Date.now(), grantId } as never).catch(() => {})
  }

  t.test('a person\'s sessions are listed, newest activity first, and only theirs', async (t) => {
    const alice = newPerson()
    const bob = newPerson()
    const first = await signIn(alice, Date.now() - 1000)
    const second = await signIn(alice)
    await signIn(bob)
    const listed = await people.list(alice)
    t.same(listed.map((session) => session.handle).sort(), [first.handle, second.handle].sort())
    t.ok(listed.every((session) => session.device === 'Firefox on Linux' && session.network === '192.0.2.0/24'))
    t.equal((await people.list(bob)).length, 1, 'bob sees his own only')
  })

  t.test('ending one deletes its session and grant, and nobody else\'s', async (t) => {
    const alice = newPerson()
    const kept = await signIn(alice)
    const ended = await signIn(alice)
    t.same(await people.end(alice, [ended.handle]), { live: 1, handles: [ended.handle], whose: [personBudgetKey(alice)] }, 'the handles ended, for their open pages, and whose they were')
    t.equal(await sessions.load(ended.sid), undefined, 'the session record is gone')
    t.equal(await grants.read(ended.grantId), undefined, 'and its grant')
    t.not(await sessions.load(kept.sid), undefined, 'the other session stays')
    t.not(await grants.read(kept.grantId), undefined)
    t.same((await people.list(alice)).map((s) => s.handle), [kept.handle])
    t.same((await people.end(alice, [ended.handle])).handles, [], 'ending it again finds nothing')
    t.same((await people.end(newPerson(), [kept.handle])).handles, [], 'another person cannot end it')
    t.not(await sessions.load(kept.sid), undefined)
  })

  t.test('a grant that cannot be deleted once its session\'s record is gone: the ending stands, and says what it left', async (t) => {
    const alice = newPerson()
    const first = await signIn(alice)
    const second = await signIn(alice)
    leftBehind.length = 0
    grantsFail = true
    t.teardown(() => { grantsFail = false })
    const ended = await people.endAll(alice)
    grantsFail = false
    t.same(ended.handles.sort(), [first.handle, second.handle].sort(), 'both ended, their pages to be told')
    t.equal(await sessions.load(first.sid), undefined, 'the records are gone')
    t.equal(await sessions.load(second.sid), undefined)
    t.same(await people.list(alice), [], 'and so are the index entries')
    t.same(leftBehind, ['its grant (gone when it expires)', 'its grant (gone when it expires)'], 'the grants left to their lifetime, each said')
  })

  t.test('ending all but one, and all', async (t) => {
    const alice = newPerson()
    const here = await signIn(alice)
    const others = [await signIn(alice), await signIn(alice)]
    t.same(await people.endAll(alice, here.handle), { live: 2, handles: others.map((other) => other.handle), whose: [personBudgetKey(alice)] })
    for (const other of others) t.equal(await grants.read(other.grantId), undefined)
    t.same((await people.list(alice)).map((s) => s.handle), [here.handle])
    t.equal((await people.endAll(alice)).live, 1, 'and then the last one')
    t.same(await people.list(alice), [])
    t.same(await index.entries(alice), [], 'the index is empty')
  })

  t.test('after the idle timeout a session is no longer listed, and its entry goes', async (t) => {
    const alice = newPerson()
    const idle = await signIn(alice)
    const active = await signIn(alice)
    const until = Date.now() + IDLE_MS + 200
    while (Date.now() < until) {
      await touch(active.sid, active.grantId, Date.now() - 100)
      await sleep(100)
    }
    t.same((await people.list(alice)).map((s) => s.handle), [active.handle], 'the idle one is gone')
    t.same((await index.entries(alice)).map((e) => e.handle), [active.handle], 'and pruned from the index')
    t.ok(idle.handle !== active.handle)
  })

  t.test('past the absolute timeout a session is no longer listed, even if its record lingers', async (t) => {
    const alice = newPerson()
    const old = await signIn(alice, Date.now() - ABSOLUTE_MS - 1)
    t.same((await people.list(alice)).map((s) => s.handle), [])
    t.same(await index.entries(alice), [], `pruned (${old.handle})`)
  })

  t.test('a sign-in that replaces a session (rotation) leaves one entry, not two', async (t) => {
    const alice = newPerson()
    const before = await signIn(alice)
    await sessions.drop(before.sid)
    const after = await signIn(alice, Date.now(), before.handle)
    t.same((await index.entries(alice)).map((e) => e.handle), [after.handle])
  })

  t.test(`at most ${maxPerPerson} per person: a sign-in beyond ends the oldest, sessions already gone first`, async (t) => {
    const alice = newPerson()
    const now = Date.now()
    const signedIn = []
    for (let i = 0; i < maxPerPerson; i++) signedIn.push(await signIn(alice, now - 10_000 + i))
    const gone = signedIn[2]
    if (gone === undefined) throw new Error('too few sessions')
    await sessions.drop(gone.sid)
    const withRoom = await signIn(alice)
    t.equal(withRoom.ended.live, 0, 'a session already gone makes the room')
    const beyond = await signIn(alice)
    t.equal(beyond.ended.live, 1, 'then the oldest live one ends')
    const oldest = signedIn[0]
    if (oldest === undefined) throw new Error('too few sessions')
    t.equal(await grants.read(oldest.grantId), undefined, 'with its grant')
    const listed = (await people.list(alice)).map((s) => s.handle)
    t.equal(listed.length, maxPerPerson)
    t.notOk(listed.includes(oldest.handle))
    t.ok(listed.includes(beyond.handle) && listed.includes(withRoom.handle), 'the new ones are in')
  })

  t.test('an entry that cannot be read is dropped, not shown', async (t) => {
    const alice = newPerson()
    const good = await signIn(alice)
    await index.add(alice, newSessionHandle(), { sid: 'x', grantId: 'y', createdAt: Date.now(), device: 'd', network: 'n' })
    await kv.mapSet(personIndexKey(alice), 'not-a-handle', '{broken', 60_000)
    const listed = await people.list(alice)
    t.same(listed.map((s) => s.handle), [good.handle], 'only the live, readable one')
    t.equal((await index.entries(alice)).length, 1, 'the rest are pruned')
  })
}
