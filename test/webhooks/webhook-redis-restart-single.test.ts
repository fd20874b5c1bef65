// webhook-redis-restart.suite.ts on a single Redis server.
import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { startRedis } from '../helpers/redis.js'
import { redisRestartSuite } from './webhook-redis-restart.suite.js'

const redis = await startRedis()
t.teardown(redis.destroy)
redisRestartSuite(t, () => ({
  url: redis.url,
  restart: async () => {
    await redis.stop()
    await sleep(1000)
    await redis.start()
  }
}))
