import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { createMemoryStore } from '../../src/store/memory-store.js'
import { StoreFullError } from '../../src/store/key-value-store.js'
import { storeBehaviour } from './store-behaviour.js'

t.test('memory store: shared behaviour, on a clock the test moves on', async (t) => {
  let time = Date.now()
  storeBehaviour(t, () => createMemoryStore({ sweepIntervalMs: 50, now: () => time }), async (ms) => { time += ms })
})

t.test('never holds more than maxEntries', async (t) => {
  const store = createMemoryStore({ maxEntries: 50 })
  t.teardown(() => store.close())
  let largest = 0
  for (let i = 0; i < 1000; i++) {
    await store.set(`k${i}`, 'v', 60_000)
    largest = Math.max(largest, store.size)
  }
  t.equal(largest, 50)
  t.equal(await store.get('k999'), 'v', 'the newest entries are kept')
  t.equal(await store.get('k0'), undefined, 'the oldest were evicted')
})

t.test('evicts the least recently used entry; reads count as use', async (t) => {
  const store = createMemoryStore({ maxEntries: 3 })
  t.teardown(() => store.close())
  await store.set('a', '1', 60_000)
  await store.set('b', '2', 60_000)
  await store.set('c', '3', 60_000)
  await store.get('a')
  await store.set('d', '4', 60_000)
  t.equal(await store.get('b'), undefined, 'b was least recently used')
  t.same(await Promise.all(['a', 'c', 'd'].map((k) => store.get(k))), ['1', '3', '4'])
  await store.set('a', 'replaced', 60_000)
  t.equal(store.size, 3, 'replacing a key does not evict anything')
})

t.test('whenFull: refuse: a new key beyond the bound fails, and nothing already there is touched', async (t) => {
  const store = createMemoryStore({ maxEntries: 3, whenFull: 'refuse' })
  t.teardown(() => store.close())
  await store.set('a', '1', 60_000)
  await store.mapSet('b', 'f', '2', 60_000)
  await store.set('c', '3', 60_000)
  await t.rejects(store.set('d', '4', 60_000), StoreFullError)
  await t.rejects(store.setIfAbsent('d', '4', 60_000), StoreFullError)
  await t.rejects(store.mapSet('e', 'f', '5', 60_000), StoreFullError)
  t.same(await Promise.all(['a', 'c'].map((k) => store.get(k))), ['1', '3'], 'no entry was evicted')
  await store.set('a', 'replaced', 60_000)
  t.equal(await store.compareAndSet('c', '3', 'swapped', 60_000), true)
  t.equal(await store.mapSet('b', 'g', '6', 60_000), 2, 'writes to keys already there always succeed')
  await store.delete('a')
  await store.set('d', '4', 60_000)
  t.equal(await store.get('d'), '4', 'room again once one is gone')
})

t.test('whenFull: refuse still makes room from expired entries first', async (t) => {
  const store = createMemoryStore({ maxEntries: 2, whenFull: 'refuse' })
  t.teardown(() => store.close())
  await store.set('live', '1', 60_000)
  await store.set('expiring', '2', 20)
  await sleep(50)
  await store.set('new', '3', 60_000)
  t.same(await Promise.all(['live', 'new'].map((k) => store.get(k))), ['1', '3'])
})

t.test('when full, expired entries go before live ones', async (t) => {
  const store = createMemoryStore({ maxEntries: 3 })
  t.teardown(() => store.close())
  await store.set('live-1', '1', 60_000)
  await store.set('live-2', '2', 60_000)
  await store.set('expiring', '3', 20)
  await store.get('live-1') // live-2 is now the least recently used live entry
  await sleep(50)
  await store.set('new', '4', 60_000)
  t.same(await Promise.all(['live-1', 'live-2', 'new'].map((k) => store.get(k))), ['1', '2', '4'], 'no live entry was evicted')
})

t.test('the periodic sweep frees expired entries nobody reads', async (t) => {
  const store = createMemoryStore({ sweepIntervalMs: 30 })
  t.teardown(() => store.close())
  for (let i = 0; i < 100; i++) await store.set(`k${i}`, 'v', 20)
  await store.set('lasting', 'v', 60_000)
  t.equal(store.size, 101)
  await sleep(120)
  t.equal(store.size, 1, 'only the live entry is left')
})

t.test('close frees everything', async (t) => {
  const store = createMemoryStore()
  await store.set('k', 'v', 60_000)
  await store.close()
  t.equal(store.size, 0)
})

t.test('the sweep timer does not keep the process alive', async (t) => {
  const moduleUrl = new URL('../../src/store/memory-store.ts', import.meta.url).href
  const child = spawnSync(process.execPath, [
    '--import', 'tsx', '--input-type=module', '-e',
    `import { createMemoryStore } from ${JSON.stringify(moduleUrl)}; await createMemoryStore({ sweepIntervalMs: 10 }).set('k', 'v', 1000)`
  ], { cwd: fileURLToPath(new URL('../..', import.meta.url)), timeout: 10_000, encoding: 'utf8' })
  t.equal(child.status, 0, child.stderr)
})

t.test('rejects nonsensical bounds', async (t) => {
  t.throws(() => createMemoryStore({ maxEntries: 0 }), RangeError)
  t.throws(() => createMemoryStore({ maxEntries: 1.5 }), RangeError)
  t.throws(() => createMemoryStore({ sweepIntervalMs: 0 }), RangeError)
})
