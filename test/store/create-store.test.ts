import { Redis } from 'ioredis'
import t from 'tap'
import { createStore } from '../../src/store/create-store.js'
import { startRedis } from '../helpers/redis.js'

t.test('no Redis URL: an in-memory store', async (t) => {
  for (const redisUrl of [undefined, '']) {
    const store = createStore({ redisUrl, maxEntries: 2 })
    t.teardown(() => store.close())
    await store.set('a', '1', 60_000)
    await store.set('b', '2', 60_000)
    await store.set('c', '3', 60_000)
    t.equal(await store.get('a'), undefined, 'bounded by maxEntries, so it is the memory store')
  }
})

t.test('a Redis URL: the Redis store, with the key prefix', async (t) => {
  const redis = await startRedis()
  t.teardown(() => redis.destroy())
  const store = createStore({ redisUrl: redis.url, keyPrefix: 'deployment-1:', commandTimeoutMs: 500 })
  t.teardown(() => store.close())
  await store.set('k', 'v', 60_000)
  const raw = new Redis(redis.url)
  t.teardown(() => { raw.disconnect() })
  t.equal(await raw.get('deployment-1:k'), 'v')
})
