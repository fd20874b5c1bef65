// webhook-redis-restart.suite.ts on a three-master Redis Cluster: the node holding the stream of
// follow-ups (one key, one hash slot) is the one restarted.
import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { startClusterDeployment } from '../store/redis-topologies.js'
import { redisRestartSuite, STREAM_KEY } from './webhook-redis-restart.suite.js'

const cluster = await startClusterDeployment()
t.teardown(cluster.destroy)
// Slots are split evenly over the nodes, in order (startClusterDeployment).
const probe = new Redis(cluster.ports[0] as number, '127.0.0.1')
const slot = Number(await probe.call('CLUSTER', 'KEYSLOT', STREAM_KEY))
probe.disconnect()
const holder = cluster.nodes[Math.floor(slot / Math.ceil(16384 / cluster.nodes.length))]
if (holder === undefined) throw new Error(`no node holds slot ${slot}`)
redisRestartSuite(t, () => ({
  url: cluster.url,
  restart: async () => {
    await holder.stop()
    await sleep(1000)
    await holder.start()
  }
}))
