// The device-bound session walk (device-bound-sessions.suite.ts) on a real Redis shared by two
// instances: registered on one, renewed and refused on the other.
import t from 'tap'
import { startRedis } from '../helpers/redis.js'
import { deviceBoundSuite } from './device-bound-sessions.suite.js'

const redis = await startRedis()
t.teardown(redis.destroy)
let prefix = 0
deviceBoundSuite(t, () => ({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: `bound${++prefix}:` }), 2)
