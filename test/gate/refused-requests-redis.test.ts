// test/gate/refused-requests.suite.ts on a real Redis.
import t from 'tap'
import { startRedis } from '../helpers/redis.js'
import { refusedRequestsSuite } from './refused-requests.suite.js'

const redis = await startRedis()
t.teardown(redis.destroy)
let prefix = 0
refusedRequestsSuite(t, () => ({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: `refused${++prefix}:` }))
