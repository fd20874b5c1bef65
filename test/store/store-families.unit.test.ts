// Store families (src/store/store-families.ts) without HTTP: in memory each family is a store of
// its own, people's never evicted; a flood of bookkeeping pushes out only its own kind; new
// sign-ins stop at their bound; on Redis, bookkeeping is held back once Redis is nearly full
// (redis-memory.ts reads INFO as Redis itself compares memory).
import t from 'tap'
import { createStoreFamilies, memoryBounds } from '../../src/store/store-families.js'
import { StoreFullError } from '../../src/store/key-value-store.js'
import { usedShare } from '../../src/store/redis-memory.js'

t.test('in memory: a flood of every kind of bookkeeping leaves people\'s records alone', async (t) => {
  const stores = createStoreFamilies({ maxSessions: 10 })
  t.teardown(stores.close)
  await stores.people.set('sess:alice', 'session', 60_000)
  await stores.people.set('grant:alice', 'grant', 60_000)
  await stores.people.mapSet('people:alice', 'handle', 'entry', 60_000)
  const bounds = memoryBounds(10)
  for (let i = 0; i < 1000; i++) {
    await stores.webhooks.set(`webhook-id:${i}`, '1', 60_000)
    await stores.finishes.set(`uploaded-file:${i}`, 'owner', 60_000)
    await stores.uploads.set(`registration:${i}`, 'r', 60_000)
    await stores.signIns.set(`login-used:${i}`, '1', 60_000)
  }
  t.same(await Promise.all(['sess:alice', 'grant:alice'].map((k) => stores.people.get(k))), ['session', 'grant'], 'sessions and grants stay')
  t.same(await stores.people.mapGetAll('people:alice'), { handle: 'entry' }, 'and so does the person\'s index')
  t.same(stores.sizes(), { people: 3, checks: 0, locks: 0, sign_ins: bounds.sign_ins, uploads: bounds.uploads, finishes: bounds.finishes, webhooks: bounds.webhooks }, 'each kind at its own bound')
})

t.test('in memory: new sign-ins stop at their bound; the people already in keep writing', async (t) => {
  const stores = createStoreFamilies({ maxSessions: 10 })
  t.teardown(stores.close)
  const { admitPeopleBelow, people } = memoryBounds(10)
  let signedIn = 0
  while (await stores.roomForSignIn()) {
    await stores.people.set(`sess:${signedIn}`, 's', 60_000)
    await stores.people.set(`grant:${signedIn}`, 'g', 60_000)
    signedIn++
  }
  t.equal(signedIn * 2, admitPeopleBelow, 'let in until the admission bound')
  for (let i = 0; i < signedIn; i++) await stores.people.set(`grant:${i}`, 'refreshed', 60_000)
  for (let i = 0; i < signedIn; i++) t.equal(await stores.locks.setIfAbsent(`lock:grant:${i}`, 'me', 60_000), true)
  t.equal(await stores.people.get('grant:0'), 'refreshed', 'refreshes still write')
  // Sign-ins racing past the check take the headroom, and then are refused, never evicting.
  for (let i = signedIn * 2; i < people; i++) await stores.people.set(`raced:${i}`, 'x', 60_000)
  await t.rejects(stores.people.set('one-more', 'x', 60_000), StoreFullError)
  t.equal(await stores.people.get('sess:0'), 's', 'nobody was dropped')
})

t.test('usedShare reads INFO memory as Redis compares it to maxmemory', async (t) => {
  const info = (fields: Record<string, number>): string => ['# Memory', ...Object.entries(fields).map(([k, v]) => `${k}:${v}`), ''].join('\r\n')
  t.equal(usedShare(info({ used_memory: 800, maxmemory: 1000 })), 0.8)
  t.equal(usedShare(info({ used_memory: 900, mem_not_counted_for_evict: 100, maxmemory: 1000 })), 0.8, 'replication and AOF buffers are not counted')
  t.equal(usedShare(info({ used_memory: 800, maxmemory: 0 })), undefined, 'no maxmemory: no limit')
  t.equal(usedShare('not INFO'), undefined)
  t.equal(usedShare(info({ used_memory_peak: 5, used_memory: 500, maxmemory: 1000, maxmemory_human: 1 })), 0.5, 'fields are matched whole')
})
