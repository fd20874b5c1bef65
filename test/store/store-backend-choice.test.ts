// The one switch between the two deployments (src/store/store-families.ts): no REDIS_URL, every
// family in this process's memory; with it, every family on Redis under the key prefix.
import { Redis } from 'ioredis'
import t from 'tap'
import { createStoreFamilies } from '../../src/store/store-families.js'
import { startRedis } from '../helpers/redis.js'

t.test('no Redis URL: in-memory stores', async (t) => {
  for (const redisUrl of [undefined, '']) {
    const families = createStoreFamilies({ redisUrl, maxSessions: 2 })
    t.teardown(() => families.close())
    t.equal(families.redis, undefined)
    const store = families.uploads
    await store.set('a', '1', 60_000)
    await store.set('b', '2', 60_000)
    await store.set('c', '3', 60_000)
    t.equal(await store.get('a'), undefined, 'bounded by MEMORY_MAX_SESSIONS, so it is the memory store')
  }
})

t.test('a Redis URL: the Redis store, with the key prefix', async (t) => {
  const redis = await startRedis()
  t.teardown(() => redis.destroy())
  const families = createStoreFamilies({ redisUrl: redis.url, keyPrefix: 'deployment-1:', commandTimeoutMs: 500 })
  t.teardown(() => families.close())
  await families.people.set('k', 'v', 60_000)
  const raw = new Redis(redis.url)
  t.teardown(() => { raw.disconnect() })
  t.equal(await raw.get('deployment-1:k'), 'v')
})
