// webhook-takeover.suite.ts on a three-master Redis Cluster: the stream is one key, on one slot.
import t from 'tap'
import { startClusterDeployment } from '../store/redis-topologies.js'
import { takeoverSuite } from './webhook-takeover.suite.js'

const cluster = await startClusterDeployment()
t.teardown(cluster.destroy)
takeoverSuite(t, () => cluster.url)
