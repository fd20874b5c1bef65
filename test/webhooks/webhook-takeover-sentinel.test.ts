// webhook-takeover.suite.ts on Redis Sentinel (a master, a replica, one Sentinel).
import t from 'tap'
import { startSentinelDeployment } from '../store/redis-topologies.js'
import { takeoverSuite } from './webhook-takeover.suite.js'

const sentinel = await startSentinelDeployment()
t.teardown(sentinel.destroy)
takeoverSuite(t, () => sentinel.url)
