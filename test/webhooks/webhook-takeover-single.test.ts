// webhook-takeover.suite.ts on a single Redis server.
import t from 'tap'
import { startRedis } from '../helpers/redis.js'
import { takeoverSuite } from './webhook-takeover.suite.js'

const redis = await startRedis()
t.teardown(redis.destroy)
takeoverSuite(t, () => redis.url)
