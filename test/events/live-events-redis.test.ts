// Live updates over HTTP on a real Redis shared by two instances: the webhook reaches one, the
// pages' channels are open on the other (live-events.suite.ts).
import t from 'tap'
import { startRedis } from '../helpers/redis.js'
import { liveEventsSuite } from './live-events.suite.js'

const redis = await startRedis()
t.teardown(redis.destroy)
let prefix = 0
liveEventsSuite(t, () => ({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: `live${++prefix}:` }), true)
