// A person's sessions and the operator's lever over HTTP, on a real Redis shared by two instances.
import t from 'tap'
import { startRedis } from '../helpers/redis.js'
import { sessionsSuite } from './sessions-http.suite.js'

const redis = await startRedis()
t.teardown(redis.destroy)
let prefix = 0
sessionsSuite(t, () => ({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: `sessions${++prefix}:` }))
