// The session core on a real Redis shared by two cores, as two instances share it.
import t from 'tap'
import { startRedis } from '../helpers/redis.js'
import { createRedisStore } from '../../src/store/redis-store.js'
import { sessionCoreBehaviour } from './session-core-behaviour.js'

const redis = await startRedis()
t.teardown(redis.destroy)
sessionCoreBehaviour(t, () => createRedisStore({ url: redis.url, keyPrefix: 'core:' }))
