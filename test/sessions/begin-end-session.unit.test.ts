// Beginning and ending a session as plain functions (src/sessions/begin-session.ts,
// end-session.ts), over real in-memory stores, with the cookie layer played by a record held here.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { createMemoryStore } from '../../src/store/memory-store.js'
import { createTokenCipher, parseTokenKeys } from '../../src/store/token-cipher.js'
import { createSessionStore } from '../../src/store/session-store.js'
import { createGrantStore } from '../../src/grants/grant-store.js'
import { createSessionIndex } from '../../src/sessions/session-index.js'
import { createPersonSessions } from '../../src/sessions/person-sessions.js'
import { beginSession, type HeldSession, type NewSession } from '../../src/sessions/begin-session.js'
import { endSession } from '../../src/sessions/end-session.js'
import type { Ending, EndedSessions } from '../../src/sessions/session-endings.js'
import { personBudgetKey, signedInOf, type SessionRecord } from '../../src/sessions/signed-in.js'
import { RECORD_FORMAT } from '../../src/store/record-format.js'
import { testTokenKey } from '../helpers/secrets.js'

const timeouts = { idleTimeoutMs: 60_000, absoluteTimeoutMs: 600_000 }

function world (options: { failIndex?: boolean, failGrantDelete?: boolean } = {}) {
  const kv = createMemoryStore()
  const cipher = createTokenCipher(parseTokenKeys(testTokenKey()))
  const sessions = createSessionStore<SessionRecord>(kv, { cipher, ttlMs: () => 60_000 })
  const grants = createGrantStore(kv, cipher, { ttlMs: 600_000 })
  const people = createPersonSessions({
    index: createSessionIndex(kv, { lifetimeMs: 600_000 }),
    readSession: async (sid) => await sessions.load(sid) as SessionRecord | undefined,
    destroySession: sessions.drop,
    deleteGrant: async (id) => { await grants.delete(id) },
    timeouts,
    maxPerPerson: 2
  })
  const endings: Array<[Ending, EndedSessions]> = []
  const leftBehind: string[] = []
  const parts = {
    dropSession: sessions.drop,
    deleteGrant: options.failGrantDelete === true ? async () => { throw new Error('store down') } : async (id: string) => { await grants.delete(id) },
    forget: people.forget,
    recordSignIn: options.failIndex === true ? async () => { throw new Error('store down') } : people.recordSignIn,
    ended: async (ending: Ending, ended: EndedSessions) => { endings.push([ending, ended]) },
    leftBehind: (what: string) => { leftBehind.push(what) }
  }
  const save = async (sid: string, record: object): Promise<void> => { await sessions.save(sid, record as SessionRecord) }
  /** A browser's session as the cookie layer holds it: an id and a record. */
  const browser = (secure = true) => {
    let sid = randomUUID()
    let record: object = {}
    const held = (): HeldSession => ({
      sid,
      record,
      rotate: async () => { await sessions.drop(sid); sid = randomUUID(); record = {} },
      save: async (next) => { record = next; if (!secure) return undefined; await save(sid, next); return sid },
      destroy: async () => { await sessions.drop(sid) }
    })
    return { held, get sid () { return sid }, get record () { return record } }
  }
  const completed = async (userId: string): Promise<NewSession> => {
    const grant = await grants.create({ tenant: 'default', userId, accessToken: 'a', refreshToken: 'r', expiresAt: Date.now() + 60_000, scopes: ['basic'] })
    const now = Date.now()
    return { format: RECORD_FORMAT, grantId: grant.id, tenant: 'default', user: { id: userId, name: undefined, email: undefined }, uploadOwner: grant.id, authenticatedAt: now, lastSeen: now } as NewSession
  }
  return { sessions, grants, people, parts, endings, leftBehind, browser, completed }
}

t.test('a sign-in begins a session: saved, then indexed under its person', async (t) => {
  const { parts, browser, completed, sessions, people, endings } = world()
  const alice = { tenant: 'default', userId: `alice-${randomUUID()}` }
  const tab = browser()
  const before = tab.sid
  await beginSession(parts, tab.held(), { session: await completed(alice.userId), replacing: undefined, device: 'd', network: 'n' })
  t.not(tab.sid, before, 'the id rotated')
  t.not(await sessions.load(tab.sid), undefined, 'saved')
  t.equal((await people.list(alice)).length, 1, 'indexed')
  t.same(endings.map(([ending]) => ending), ['over_cap'], 'nothing replaced; the cap ended nothing')
  t.same(endings[0]?.[1].handles, [])
})

t.test('a re-authorization replaces the session: its grant deleted, its pages told, one index entry', async (t) => {
  const { parts, browser, completed, sessions, grants, people, endings } = world()
  const alice = { tenant: 'default', userId: `alice-${randomUUID()}` }
  const tab = browser()
  await beginSession(parts, tab.held(), { session: await completed(alice.userId), replacing: undefined, device: 'd', network: 'n' })
  const first = { sid: tab.sid, record: tab.record as SessionRecord }
  const replacing = signedInOf(first.sid, first.record, timeouts)
  await beginSession(parts, tab.held(), { session: await completed(alice.userId), replacing, device: 'd', network: 'n' })
  t.equal(await sessions.load(first.sid), undefined, 'the old record is gone')
  t.equal(await grants.read(first.record.grantId as string), undefined, 'and its grant')
  const replaced = endings.find(([ending]) => ending === 'replaced')
  t.same(replaced?.[1], { live: 1, handles: [first.record.handle], whose: [personBudgetKey(alice), personBudgetKey(alice)] })
  t.same((await people.list(alice)).map((entry) => entry.sid), [tab.sid], 'the index holds the new one only')
})

t.test('another person signing in on the same browser: the first person\'s entry is forgotten', async (t) => {
  const { parts, browser, completed, people } = world()
  const alice = { tenant: 'default', userId: `alice-${randomUUID()}` }
  const bob = { tenant: 'default', userId: `bob-${randomUUID()}` }
  const tab = browser()
  await beginSession(parts, tab.held(), { session: await completed(alice.userId), replacing: undefined, device: 'd', network: 'n' })
  await beginSession(parts, tab.held(), { session: await completed(bob.userId), replacing: signedInOf(tab.sid, tab.record as SessionRecord, timeouts), device: 'd', network: 'n' })
  t.same(await people.list(alice), [])
  t.equal((await people.list(bob)).length, 1)
})

t.test('no cookie can carry it: nothing saved, nothing indexed', async (t) => {
  const { parts, browser, completed, people } = world()
  const alice = { tenant: 'default', userId: `alice-${randomUUID()}` }
  await beginSession(parts, browser(false).held(), { session: await completed(alice.userId), replacing: undefined, device: 'd', network: 'n' })
  t.same(await people.list(alice), [])
})

t.test('the index failing: the new session is not kept', async (t) => {
  const { parts, browser, completed, sessions } = world({ failIndex: true })
  const tab = browser()
  await t.rejects(beginSession(parts, tab.held(), { session: await completed(`alice-${randomUUID()}`), replacing: undefined, device: 'd', network: 'n' }), /store down/)
  t.equal(await sessions.load(tab.sid), undefined)
})

t.test('ending a sign-in: grant, index entry and record gone, the ending made known once', async (t) => {
  const { parts, browser, completed, sessions, grants, people, endings } = world()
  const alice = { tenant: 'default', userId: `alice-${randomUUID()}` }
  const tab = browser()
  await beginSession(parts, tab.held(), { session: await completed(alice.userId), replacing: undefined, device: 'd', network: 'n' })
  const record = tab.record as SessionRecord
  endings.length = 0
  await endSession(parts, record as never, async () => { await sessions.drop(tab.sid) }, 'signed_out')
  t.equal(await grants.read(record.grantId as string), undefined)
  t.equal(await sessions.load(tab.sid), undefined)
  t.same(await people.list(alice), [])
  t.same(endings, [['signed_out', { live: 1, handles: [record.handle], whose: [personBudgetKey(alice)] }]])
})

t.test('ending a sign-in whose record cannot be dropped: nothing is ended, and the caller hears it', async (t) => {
  const { parts, browser, completed, sessions, grants, people, endings } = world()
  const alice = { tenant: 'default', userId: `alice-${randomUUID()}` }
  const tab = browser()
  await beginSession(parts, tab.held(), { session: await completed(alice.userId), replacing: undefined, device: 'd', network: 'n' })
  const record = tab.record as SessionRecord
  endings.length = 0
  await t.rejects(endSession(parts, record as never, async () => { throw new Error('store down') }, 'signed_out'), /store down/)
  t.not(await sessions.load(tab.sid), undefined, 'the session is as it was')
  t.not(await grants.read(record.grantId as string), undefined, 'its grant too')
  t.equal((await people.list(alice)).length, 1, 'and its entry')
  t.same(endings, [], 'nothing ended, nothing told')
})

t.test('ending a sign-in once its record is gone cannot half-happen: a grant the store keeps is left behind and said, the ending made known', async (t) => {
  const { parts, browser, completed, sessions, endings, leftBehind } = world({ failGrantDelete: true })
  const alice = { tenant: 'default', userId: `alice-${randomUUID()}` }
  const tab = browser()
  await beginSession(parts, tab.held(), { session: await completed(alice.userId), replacing: undefined, device: 'd', network: 'n' })
  const record = tab.record as SessionRecord
  endings.length = 0
  await endSession(parts, record as never, async () => { await sessions.drop(tab.sid) }, 'signed_out')
  t.equal(await sessions.load(tab.sid), undefined, 'the session is over')
  t.same(leftBehind, ['its grant (gone when it expires)'], 'what was left behind is said')
  t.same(endings.map(([ending]) => ending), ['signed_out'], 'the ending is made known all the same')
})
