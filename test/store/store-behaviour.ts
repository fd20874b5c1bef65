// The behaviour every KeyValueStore backend must have, written once and run against each of
// them (memory, Redis single, Sentinel, Cluster), so the backends cannot drift apart.
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Test } from 'tap'
import { StoreUnavailableError, type KeyValueStore } from '../../src/store/key-value-store.js'

/** Opens a fresh store on the backend under test; the suite closes it. */
export type OpenStore = () => KeyValueStore

/**
 * Lets `ms` of the backend's time go by: a clock moved on for a backend that takes one (memory),
 * real time for one that keeps its own (Redis).
 */
export type PassTime = (ms: number) => Promise<void>

const longTtl = 60_000
const shortTtl = 80

/**
 * Runs `steps`, which write with a short TTL and look before it runs out: what they saw counts
 * only when every step came before the TTL could have run out. On a loaded machine two calls to
 * a backend that keeps its own time (Redis) can be further apart than a short TTL; the steps then
 * run again with twice the TTL, until they fit. Resolves to what they saw and the TTL they used.
 */
async function beforeTtlRunsOut<T> (steps: (ttl: number) => Promise<T>): Promise<{ saw: T, ttl: number }> {
  for (let ttl = shortTtl; ; ttl *= 2) {
    const started = performance.now()
    const saw = await steps(ttl)
    if (performance.now() - started < ttl || ttl >= 60_000) return { saw, ttl }
  }
}

/** Long enough after a write with `ttl` for it to have run out. */
const past = (ttl: number): number => Math.round(ttl * 2.5)

export function storeBehaviour (t: Test, openStore: OpenStore, passTime: PassTime = async (ms) => { await sleep(ms) }): void {
  const store = openStore()
  t.teardown(() => store.close())
  // Unique keys per run, so suites may share one Redis.
  const key = (name: string): string => `test:${randomUUID()}:${name}`

  t.test('get, set, delete', async (t) => {
    const k = key('plain')
    t.equal(await store.get(k), undefined, 'absent key reads as undefined')
    await store.set(k, 'one', longTtl)
    t.equal(await store.get(k), 'one')
    await store.set(k, 'two', longTtl)
    t.equal(await store.get(k), 'two', 'set replaces')
    await store.delete(k)
    t.equal(await store.get(k), undefined, 'deleted')
    await t.resolves(store.delete(k), 'deleting an absent key is fine')
  })

  t.test('readAndCount: the value (written when absent) and a fixed-window counter, in one step', async (t) => {
    const tag = randomUUID()
    const k = `test:{${tag}}:epoch`
    t.same(await store.readAndCount(k, 'first', longTtl), { value: 'first' }, 'absent: written as the initial value')
    t.same(await store.readAndCount(k, 'second', longTtl), { value: 'first' }, 'present: read, not replaced')
    await store.set(k, 'changed', longTtl)
    const { saw, ttl } = await beforeTtlRunsOut(async (windowMs) => {
      const counter = { key: `test:{${tag}}:count:${windowMs}`, windowMs }
      const one = await store.readAndCount(k, 'third', longTtl, counter)
      const two = await store.readAndCount(k, 'third', longTtl, counter)
      return { counter, one, two }
    })
    const { counter, one, two } = saw
    t.same([one.value, one.count, two.count], ['changed', 1, 2], 'each call counts one')
    t.ok(two.resetInMs !== undefined && two.resetInMs > 0 && two.resetInMs <= ttl, `the window has ${String(two.resetInMs)} of ${ttl} ms left`)
    await passTime(past(ttl))
    t.equal((await store.readAndCount(k, 'third', longTtl, counter)).count, 1, 'a new window starts at one')
    await store.delete(k)
    t.equal((await store.readAndCount(k, 'after', longTtl)).value, 'after', 'a value gone is made again')
  })

  t.test('values round-trip exactly, including empty and non-ASCII ones', async (t) => {
    for (const value of ['', ' spaced ', 'ünïcødé ✓ 🎞', 'x'.repeat(64 * 1024), '{"json":[1,2]}', '123']) {
      const k = key('value')
      await store.set(k, value, longTtl)
      t.equal(await store.get(k), value)
    }
  })

  t.test('every write expires after its TTL', async (t) => {
    const { saw, ttl } = await beforeTtlRunsOut(async (ttl) => {
      const keys = { plain: key('ttl-set'), ifAbsent: key('ttl-setIfAbsent'), cas: key('ttl-cas'), map: key('ttl-map') }
      await store.set(keys.plain, 'v', ttl)
      const written = [await store.setIfAbsent(keys.ifAbsent, 'v', ttl), await store.compareAndSet(keys.cas, undefined, 'v', ttl)]
      await store.mapSet(keys.map, 'field', 'v', ttl)
      return { keys, written, alive: await store.get(keys.plain) }
    })
    t.same(saw.written, [true, true])
    t.equal(saw.alive, 'v', 'alive before the TTL')
    await passTime(past(ttl))
    for (const k of [saw.keys.plain, saw.keys.ifAbsent, saw.keys.cas]) t.equal(await store.get(k), undefined, 'gone after the TTL')
    t.same(await store.mapGetAll(saw.keys.map), {}, 'the map too')
  })

  t.test('a set replaces the TTL too', async (t) => {
    const k = key('ttl-replace')
    await store.set(k, 'short', shortTtl)
    await store.set(k, 'long', longTtl)
    await passTime(past(shortTtl))
    t.equal(await store.get(k), 'long')
  })

  t.test('setIfAbsent writes only when absent or expired', async (t) => {
    const { saw, ttl } = await beforeTtlRunsOut(async (ttl) => {
      const k = key('nx')
      return { k, first: await store.setIfAbsent(k, 'first', ttl), second: await store.setIfAbsent(k, 'second', longTtl), value: await store.get(k) }
    })
    const { k } = saw
    t.equal(saw.first, true)
    t.equal(saw.second, false)
    t.equal(saw.value, 'first', 'the loser did not write')
    await passTime(past(ttl))
    t.equal(await store.setIfAbsent(k, 'third', longTtl), true, 'an expired key counts as absent')
    t.equal(await store.get(k), 'third')
  })

  t.test('compareAndSet', async (t) => {
    const k = key('cas')
    t.equal(await store.compareAndSet(k, 'nothing', 'v1', longTtl), false, 'absent key does not equal a value')
    t.equal(await store.get(k), undefined)
    t.equal(await store.compareAndSet(k, undefined, 'v1', longTtl), true, 'expected undefined: writes when absent')
    t.equal(await store.compareAndSet(k, undefined, 'v2', longTtl), false, 'expected undefined: refuses when present')
    t.equal(await store.compareAndSet(k, 'v0', 'v2', longTtl), false, 'stale expectation loses')
    t.equal(await store.get(k), 'v1', 'loser wrote nothing')
    const { saw, ttl } = await beforeTtlRunsOut(async (ttl) => {
      await store.set(k, 'v1', longTtl)
      return { won: await store.compareAndSet(k, 'v1', 'v2', ttl), value: await store.get(k) }
    })
    t.equal(saw.won, true, 'matching expectation wins')
    t.equal(saw.value, 'v2')
    await passTime(past(ttl))
    t.equal(await store.get(k), undefined, 'with the new TTL')
    t.equal(await store.compareAndSet(k, 'v2', 'v3', longTtl), false, 'expired value no longer matches')
    t.equal(await store.compareAndSet(k, undefined, 'v3', longTtl), true, 'expired counts as absent')
  })

  t.test('compareAndSet on an empty-string value', async (t) => {
    const k = key('cas-empty')
    await store.set(k, '', longTtl)
    t.equal(await store.compareAndSet(k, undefined, 'x', longTtl), false, 'empty string is present, not absent')
    t.equal(await store.compareAndSet(k, '', 'x', longTtl), true)
    t.equal(await store.get(k), 'x')
  })

  t.test('concurrent compareAndSet from one version: exactly one wins', async (t) => {
    const k = key('cas-race')
    await store.set(k, 'version-1', longTtl)
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.compareAndSet(k, 'version-1', `version-2-by-${i}`, longTtl)))
    t.equal(results.filter(Boolean).length, 1)
    const winner = results.indexOf(true)
    t.equal(await store.get(k), `version-2-by-${winner}`)
  })

  t.test('concurrent setIfAbsent: exactly one wins', async (t) => {
    const k = key('nx-race')
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.setIfAbsent(k, `owner-${i}`, longTtl)))
    t.equal(results.filter(Boolean).length, 1)
  })

  t.test('deleteIfEquals', async (t) => {
    const k = key('del-eq')
    t.equal(await store.deleteIfEquals(k, 'owner'), false, 'absent')
    await store.set(k, 'owner', longTtl)
    t.equal(await store.deleteIfEquals(k, 'intruder'), false, 'someone else cannot delete it')
    t.equal(await store.get(k), 'owner')
    t.equal(await store.deleteIfEquals(k, 'owner'), true)
    t.equal(await store.get(k), undefined)
    t.equal(await store.deleteIfEquals(k, 'owner'), false, 'only once')
  })

  t.test('expireIfEquals', async (t) => {
    const k = key('exp-eq')
    t.equal(await store.expireIfEquals(k, 'owner', longTtl), false, 'absent')
    t.equal(await store.get(k), undefined, 'and it did not create the key')
    const first = await beforeTtlRunsOut(async (ttl) => {
      await store.set(k, 'owner', ttl)
      return [await store.expireIfEquals(k, 'intruder', longTtl), await store.expireIfEquals(k, 'owner', longTtl)]
    })
    t.same(first.saw, [false, true], 'someone else cannot extend it; the owner can')
    await passTime(past(first.ttl))
    t.equal(await store.get(k), 'owner', 'lived past the first TTL')
    t.equal(await store.expireIfEquals(k, 'owner', shortTtl), true, 'can shorten it too')
    await passTime(past(shortTtl))
    t.equal(await store.get(k), undefined)

    const other = key('exp-eq-other')
    await store.set(other, 'owner', shortTtl)
    t.equal(await store.expireIfEquals(other, 'intruder', longTtl), false)
    await passTime(past(shortTtl))
    t.equal(await store.get(other), undefined, 'a refused renewal did not extend it')
  })

  t.test('maps: fields set, read whole and deleted; the count after each set', async (t) => {
    const k = key('map')
    t.same(await store.mapGetAll(k), {}, 'an absent map reads as empty')
    t.equal(await store.mapSet(k, 'a', 'one', longTtl), 1)
    t.equal(await store.mapSet(k, 'b', 'ünïcødé {"json":1}', longTtl), 2)
    t.equal(await store.mapSet(k, 'a', 'replaced', longTtl), 2, 'setting a field again replaces it')
    t.same(await store.mapGetAll(k), { a: 'replaced', b: 'ünïcødé {"json":1}' })
    await store.mapDelete(k, ['a', 'never-there'])
    t.same(await store.mapGetAll(k), { b: 'ünïcødé {"json":1}' })
    await store.mapDelete(k, ['b'])
    t.same(await store.mapGetAll(k), {}, 'a map left empty is gone')
    t.equal(await store.mapSet(k, 'c', 'again', longTtl), 1, 'and starts afresh')
    t.equal(await store.mapSet(k, 'd', 'in place of c', longTtl, ['c', 'absent']), 1, 'a set may remove fields in the same step')
    t.same(await store.mapGetAll(k), { d: 'in place of c' })
    await t.resolves(store.mapDelete(key('absent-map'), ['x']), 'deleting from an absent map is fine')
  })

  t.test('a map lives as long as its longest TTL: a shorter one never shortens it', async (t) => {
    const k = key('map-ttl')
    await store.mapSet(k, 'long', 'l', longTtl)
    await store.mapSet(k, 'short', 's', shortTtl)
    await passTime(past(shortTtl))
    t.same(await store.mapGetAll(k), { long: 'l', short: 's' }, 'still there after the short TTL')
    const { saw: growing, ttl } = await beforeTtlRunsOut(async (ttl) => {
      const growing = key('map-ttl-grows')
      await store.mapSet(growing, 'first', '1', ttl)
      await store.mapSet(growing, 'second', '2', longTtl)
      return growing
    })
    await passTime(past(ttl))
    t.same(await store.mapGetAll(growing), { first: '1', second: '2' }, 'a longer TTL extends it')
  })

  t.test('concurrent mapSets are not lost', async (t) => {
    const k = key('map-race')
    const counts = await Promise.all(Array.from({ length: 25 }, (_, i) => store.mapSet(k, `f${i}`, String(i), longTtl)))
    t.same([...counts].sort((a, b) => a - b), Array.from({ length: 25 }, (_, i) => i + 1), 'every set saw its own count')
    t.equal(Object.keys(await store.mapGetAll(k)).length, 25)
  })

  t.test('TTLs must be positive and finite', async (t) => {
    for (const ttl of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      await t.rejects(store.set(key('bad-ttl'), 'v', ttl), RangeError, `set ttl ${ttl}`)
      await t.rejects(store.setIfAbsent(key('bad-ttl'), 'v', ttl), RangeError)
      await t.rejects(store.compareAndSet(key('bad-ttl'), undefined, 'v', ttl), RangeError)
      await t.rejects(store.expireIfEquals(key('bad-ttl'), 'v', ttl), RangeError)
      await t.rejects(store.mapSet(key('bad-ttl'), 'f', 'v', ttl), RangeError)
    }
    const fractional = key('fractional-ttl')
    await store.set(fractional, 'v', 0.4)
    t.pass('fractional TTLs are rounded up, not refused')
  })

  t.test('ping resolves while the backend is up', async (t) => {
    await t.resolves(store.ping())
  })

  t.test('after close every operation rejects with StoreUnavailableError', async (t) => {
    const closing = openStore()
    await closing.set(key('closing'), 'v', longTtl)
    await closing.close()
    await t.resolves(closing.close(), 'close is idempotent')
    await t.rejects(closing.get(key('closing')), StoreUnavailableError)
    await t.rejects(closing.set(key('closing'), 'v', longTtl), StoreUnavailableError)
    await t.rejects(closing.ping(), StoreUnavailableError)
  })
}
