// The per-person session index on memory and on a single real Redis; Sentinel and Cluster run the
// same suite in test/store/redis-topologies.test.ts.
import t from 'tap'
import { createMemoryStore } from '../../src/store/memory-store.js'
import { createRedisStore } from '../../src/store/redis-store.js'
import { startRedis } from '../helpers/redis.js'
import { personSessionsBehaviour } from './person-sessions-behaviour.js'

t.test('memory', async (t) => {
  personSessionsBehaviour(t, () => createMemoryStore())
})

t.test('single Redis', async (t) => {
  const redis = await startRedis()
  t.teardown(redis.destroy)
  personSessionsBehaviour(t, () => createRedisStore({ url: redis.url, keyPrefix: 'people:' }))
})
