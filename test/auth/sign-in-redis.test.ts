import t from 'tap'
import { startRedis } from '../helpers/redis.js'
import { signInSuite } from './sign-in.suite.js'

const redis = await startRedis()
t.teardown(redis.destroy)
let prefix = 0
// A fresh key prefix per test keeps the tests apart on one server.
signInSuite(t, () => ({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: `signin${++prefix}:` }))
