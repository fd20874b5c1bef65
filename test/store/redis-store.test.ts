import { inspect } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { pino } from 'pino'
import t from 'tap'
import { StoreUnavailableError, type KeyValueStore } from '../../src/store/key-value-store.js'
import { createRedisStore } from '../../src/store/redis-store.js'
import { startRedis } from '../helpers/redis.js'
import { storeBehaviour } from './store-behaviour.js'
import { BUSY_MACHINE_SLACK_MS } from '../helpers/timing.js'

const redis = await startRedis()
t.teardown(() => redis.destroy())
/** A plain client that sees the raw keys, prefix included. */
const raw = new Redis(redis.url)
t.teardown(() => { raw.disconnect() })

async function untilPingSucceeds (store: KeyValueStore, timeoutMs = 15_000): Promise<number> {
  const started = Date.now()
  while (true) {
    try {
      await store.ping()
      return Date.now() - started
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error
      if (Date.now() - started > timeoutMs) throw new Error(`store did not come back within ${timeoutMs} ms`)
      await sleep(50)
    }
  }
}

async function elapsedMs (work: Promise<unknown>): Promise<{ error: unknown, ms: number }> {
  const started = performance.now()
  try {
    await work
    return { error: undefined, ms: performance.now() - started }
  } catch (error) {
    return { error, ms: performance.now() - started }
  }
}

t.test('redis store: shared behaviour', async (t) => {
  storeBehaviour(t, () => createRedisStore({ url: redis.url, keyPrefix: 'behaviour:' }))
})

t.test('every key carries the prefix, with a TTL', async (t) => {
  const store = createRedisStore({ url: redis.url })
  t.teardown(() => store.close())
  await store.set('p:set', 'v', 60_000)
  await store.setIfAbsent('p:nx', 'v', 60_000)
  await store.compareAndSet('p:cas', undefined, 'v', 60_000)
  await store.compareAndSet('p:cas', 'v', 'w', 60_000)
  await store.mapSet('p:map', 'field', 'v', 60_000)
  for (const key of ['p:set', 'p:nx', 'p:cas', 'p:map']) {
    t.equal(await raw.exists(key), 0, `${key} is not written without the prefix`)
    const ttl = await raw.pttl(`media-bff:${key}`)
    t.ok(ttl > 59_000 && ttl <= 60_000, `media-bff:${key} exists with its TTL (${ttl})`)
  }
  t.equal(await raw.get('media-bff:p:cas'), 'w')
  await raw.set('media-bff:p:written-raw', 'from outside', 'PX', 60_000)
  t.equal(await store.get('p:written-raw'), 'from outside', 'reads go through the prefix too')
  await store.delete('p:written-raw')
  t.equal(await raw.exists('media-bff:p:written-raw'), 0, 'delete removed the prefixed key')
  t.same(await raw.hgetall('media-bff:p:map'), { field: 'v' }, 'a map is a Redis hash under the prefix')
})

t.test('two deployments with different prefixes do not see each other', async (t) => {
  const blue = createRedisStore({ url: redis.url, keyPrefix: 'blue:' })
  const green = createRedisStore({ url: redis.url, keyPrefix: 'green:' })
  t.teardown(() => Promise.all([blue.close(), green.close()]))
  await blue.set('shared-name', 'blue value', 60_000)
  t.equal(await green.get('shared-name'), undefined)
  t.equal(await green.setIfAbsent('shared-name', 'green value', 60_000), true)
  t.equal(await blue.get('shared-name'), 'blue value')
  t.equal(await green.deleteIfEquals('shared-name', 'blue value'), false)
  t.equal(await blue.mapSet('people', 'a', '1', 60_000), 1)
  t.equal(await green.mapSet('people', 'b', '2', 60_000), 1)
  t.equal(await raw.get('blue:shared-name'), 'blue value')
  t.equal(await raw.get('green:shared-name'), 'green value')
})

t.test('errors and logs never carry values', async (t) => {
  const lines: string[] = []
  const logger = pino({ level: 'debug' }, { write: (line: string) => { lines.push(line) } })
  const store = createRedisStore({ url: redis.url, logger })
  t.teardown(() => store.close())
  // A key of the wrong type makes Redis refuse the script; ioredis attaches the command and its
  // arguments to that error, which must not travel on.
  await raw.rpush('media-bff:wrong-type', 'x')
  const secret = 'sealed-token-that-must-not-leak'
  const failure = await elapsedMs(store.compareAndSet('wrong-type', `${secret}-old`, secret, 60_000))
  t.type(failure.error, StoreUnavailableError)
  const printed = inspect(failure.error, { depth: 10 }) + JSON.stringify(failure.error) + String((failure.error as Error).message)
  t.notMatch(printed, secret, 'neither the error nor its cause holds the value')
  logger.error({ err: failure.error }, 'logged the way a route would')
  t.notMatch(lines.join('\n'), secret, 'the serialised error holds no value')
})

t.test('Redis down: fails fast with StoreUnavailableError, recovers on its own, data kept', async (t) => {
  const commandTimeoutMs = 500
  const logged: Array<{ level: string, message: string, details: object }> = []
  const logger = {
    info: (details: object, message: string) => { logged.push({ level: 'info', message, details }) },
    warn: (details: object, message: string) => { logged.push({ level: 'warn', message, details }) }
  }
  const store = createRedisStore({ url: redis.url, keyPrefix: 'outage:', commandTimeoutMs, logger })
  t.teardown(() => store.close())
  await store.set('session', 'still here after the restart', 600_000)
  await store.mapSet('map', 'field', 'kept', 600_000)

  await redis.stop()
  const operations: Array<[string, () => Promise<unknown>]> = [
    ['get', () => store.get('session')],
    ['set', () => store.set('other', 'v', 60_000)],
    ['setIfAbsent', () => store.setIfAbsent('other', 'v', 60_000)],
    ['delete', () => store.delete('other')],
    ['compareAndSet', () => store.compareAndSet('session', 'x', 'y', 60_000)],
    ['deleteIfEquals', () => store.deleteIfEquals('session', 'x')],
    ['expireIfEquals', () => store.expireIfEquals('session', 'x', 60_000)],
    ['mapSet', () => store.mapSet('map', 'other', 'v', 60_000)],
    ['mapGetAll', () => store.mapGetAll('map')],
    ['mapDelete', () => store.mapDelete('map', ['field'])],
    ['ping', () => store.ping()]
  ]
  for (const [name, operation] of operations) {
    const { error, ms } = await elapsedMs(operation())
    t.type(error, StoreUnavailableError, `${name} rejects with StoreUnavailableError`)
    t.ok(ms < commandTimeoutMs + BUSY_MACHINE_SLACK_MS, `${name} gave up within the command timeout (${Math.round(ms)} ms)`)
  }
  const concurrent = await elapsedMs(Promise.allSettled(Array.from({ length: 200 }, () => store.get('session'))))
  t.ok(concurrent.ms < commandTimeoutMs + BUSY_MACHINE_SLACK_MS, `200 concurrent reads all settle quickly too (${Math.round(concurrent.ms)} ms)`)
  t.ok(logged.some((entry) => entry.level === 'warn'), 'the outage was logged')

  await redis.start()
  const recoveredMs = await untilPingSucceeds(store)
  t.ok(recoveredMs < 5000, `reconnected on its own (${recoveredMs} ms after restart)`)
  t.equal(await store.get('session'), 'still here after the restart', 'data survived (AOF)')
  t.same(await store.mapGetAll('map'), { field: 'kept' }, 'the map too')
  t.ok(logged.some((entry) => entry.message === 'redis store reconnected'), 'the recovery was logged')
  t.notMatch(JSON.stringify(logged), 'still here', 'no value was logged')
  t.notMatch(JSON.stringify(logged), redis.url, 'nor the URL (it may hold a password)')
})

t.test('Redis that stops answering: fails within commandTimeoutMs, recovers after', async (t) => {
  const commandTimeoutMs = 300
  const store = createRedisStore({ url: redis.url, keyPrefix: 'paused:', commandTimeoutMs })
  t.teardown(() => store.close())
  await store.set('k', 'v', 60_000)
  // CLIENT PAUSE holds every client's commands: the connection is up but nothing is answered.
  const pauser = new Redis(redis.url)
  t.teardown(() => { pauser.disconnect() })
  await pauser.call('CLIENT', 'PAUSE', '1500', 'ALL')
  const { error, ms } = await elapsedMs(store.get('k'))
  t.type(error, StoreUnavailableError)
  t.ok(ms >= commandTimeoutMs - 20 && ms < commandTimeoutMs + BUSY_MACHINE_SLACK_MS, `timed out at the command timeout (${Math.round(ms)} ms)`)
  await untilPingSucceeds(store)
  t.equal(await store.get('k'), 'v')
})

t.test('a reply that came in time is taken, however long this process was busy meanwhile', async (t) => {
  const commandTimeoutMs = 50
  const store = createRedisStore({ url: redis.url, keyPrefix: 'stalled:', commandTimeoutMs })
  t.teardown(() => store.close())
  await store.set('k', 'v', 60_000)
  for (let round = 0; round < 20; round++) {
    const read = store.get('k')
    // Sent (the client writes on a later turn); then the event loop held for four deadlines:
    // Redis answers within a millisecond, the reply waits on the socket, and the deadline's timer
    // is due before it is read.
    await new Promise((resolve) => setImmediate(resolve))
    const until = performance.now() + 4 * commandTimeoutMs
    while (performance.now() < until) { /* busy, as under a long GC pause or a saturated loop */ }
    t.equal(await read, 'v', `round ${round + 1}: the reply, not a timeout`)
  }
})

t.test('Redis not there yet at start-up: operations fail within the deadline, then work once it is', async (t) => {
  const late = await startRedis()
  t.teardown(() => late.destroy())
  await late.stop()
  const commandTimeoutMs = 400
  const store = createRedisStore({ url: late.url, commandTimeoutMs, connectTimeoutMs: 500 })
  t.teardown(() => store.close())
  const { error, ms } = await elapsedMs(store.set('k', 'v', 60_000))
  t.type(error, StoreUnavailableError)
  t.ok(ms < commandTimeoutMs + BUSY_MACHINE_SLACK_MS, `gave up within the command timeout (${Math.round(ms)} ms)`)
  await t.rejects(store.ping(), StoreUnavailableError)
  await late.start()
  await untilPingSucceeds(store)
  await store.set('k', 'v', 60_000)
  t.equal(await store.get('k'), 'v')
})

t.test('close quits cleanly, also while Redis is down', async (t) => {
  const store = createRedisStore({ url: redis.url })
  await store.ping()
  const before = Number(/connected_clients:(\d+)/.exec(await raw.info('clients'))?.[1])
  await store.close()
  await sleep(50)
  const after = Number(/connected_clients:(\d+)/.exec(await raw.info('clients'))?.[1])
  t.equal(after, before - 1, 'its connection is gone')

  const other = await startRedis()
  t.teardown(() => other.destroy())
  const orphan = createRedisStore({ url: other.url })
  await orphan.ping()
  await other.stop()
  const { ms } = await elapsedMs(orphan.close())
  t.ok(ms < 1100, `close does not wait for a Redis that is gone (${Math.round(ms)} ms)`)
})

t.test('options are checked', async (t) => {
  t.throws(() => createRedisStore({ url: 'http://localhost' }), /Redis URL must start with/)
  t.throws(() => createRedisStore({ url: redis.url, commandTimeoutMs: 0 }), RangeError)
})
