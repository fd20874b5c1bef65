// The same store on Redis Sentinel and Redis Cluster, reached through the multi-host URL forms.
import { setTimeout as sleep } from 'node:timers/promises'
import { Cluster, Redis } from 'ioredis'
import t from 'tap'
import { StoreUnavailableError } from '../../src/store/key-value-store.js'
import { createRedisStore } from '../../src/store/redis-store.js'
import { startClusterDeployment, startSentinelDeployment } from './redis-topologies.js'
import { storeBehaviour } from './store-behaviour.js'
import { personSessionsBehaviour } from '../sessions/person-sessions-behaviour.js'
import { sessionCoreBehaviour } from '../sessions/session-core-behaviour.js'
import { BUSY_MACHINE_SLACK_MS } from '../helpers/timing.js'

t.test('Sentinel', async (t) => {
  const deployment = await startSentinelDeployment()
  t.teardown(() => deployment.destroy())

  t.test('shared behaviour', async (t) => {
    storeBehaviour(t, () => createRedisStore({ url: deployment.url, keyPrefix: 'sentinel:' }))
  })

  t.test('the per-person session index', async (t) => {
    personSessionsBehaviour(t, () => createRedisStore({ url: deployment.url, keyPrefix: 'sentinel-people:' }))
  })

  t.test('the session core', async (t) => {
    sessionCoreBehaviour(t, () => createRedisStore({ url: deployment.url, keyPrefix: 'sentinel-core:' }))
  })

  t.test('writes land on the master the Sentinel names', async (t) => {
    const store = createRedisStore({ url: deployment.url, keyPrefix: 'sentinel:' })
    t.teardown(() => store.close())
    await store.set('where', 'on the master', 60_000)
    const master = new Redis(deployment.master.port, '127.0.0.1')
    t.teardown(() => { master.disconnect() })
    t.equal(await master.get('sentinel:where'), 'on the master')
  })

  // Last: it stops the master for good.
  t.test('after a failover the same store follows the new master', async (t) => {
    const store = createRedisStore({ url: deployment.url, keyPrefix: 'failover:', commandTimeoutMs: 500 })
    t.teardown(() => store.close())
    await store.set('grant', 'replicated', 600_000)
    const master = new Redis(deployment.master.port, '127.0.0.1')
    await master.call('WAIT', '1', '2000')
    master.disconnect()
    // How soon the Sentinel promotes the replica is Redis's own affair: the test waits for it
    // and holds the store to following within its bound from then on.
    let switchedAt: number | undefined
    const { switched } = await deployment.failOver()
    switched.then(() => { switchedAt = Date.now() }, () => {})

    let sawUnavailable = false
    while (true) {
      try {
        await store.set('after-failover', 'written', 60_000)
        break
      } catch (error) {
        if (!(error instanceof StoreUnavailableError)) throw error
        sawUnavailable = true
        if (switchedAt !== undefined && Date.now() - switchedAt > 30_000) throw new Error('the store did not follow the new master within 30 s')
        await sleep(100)
      }
    }
    await switched
    t.ok(sawUnavailable, 'operations failed with StoreUnavailableError during the failover')
    t.equal(await store.get('grant'), 'replicated', 'data written before the failover is there')
    const promoted = new Redis(deployment.replica.port, '127.0.0.1')
    t.teardown(() => { promoted.disconnect() })
    t.equal(await promoted.get('failover:after-failover'), 'written', 'and writes go to the promoted replica')
  })
})

t.test('Cluster', async (t) => {
  const deployment = await startClusterDeployment()
  t.teardown(() => deployment.destroy())

  t.test('shared behaviour', async (t) => {
    storeBehaviour(t, () => createRedisStore({ url: deployment.url, keyPrefix: 'cluster:' }))
  })

  // A person's map is one key; their sessions and grants land on other nodes.
  t.test('the per-person session index', async (t) => {
    personSessionsBehaviour(t, () => createRedisStore({ url: deployment.url, keyPrefix: 'cluster-people:' }))
  })

  t.test('the session core: the epoch and the count on one slot', async (t) => {
    sessionCoreBehaviour(t, () => createRedisStore({ url: deployment.url, keyPrefix: 'cluster-core:' }))
  })

  t.test('keys spread over the nodes, each with the prefix', async (t) => {
    const store = createRedisStore({ url: deployment.url, keyPrefix: 'cluster:' })
    t.teardown(() => store.close())
    for (let i = 0; i < 30; i++) await store.set(`spread-${i}`, String(i), 60_000)
    const perNode = await Promise.all(deployment.ports.map(async (port) => {
      const node = new Redis(port, '127.0.0.1')
      try {
        return (await node.keys('cluster:spread-*')).length
      } finally {
        node.disconnect()
      }
    }))
    t.equal(perNode.reduce((a, b) => a + b, 0), 30)
    t.ok(perNode.every((count) => count > 0), `every node holds some (${perNode.join(', ')})`)
    const cluster = new Cluster([{ host: '127.0.0.1', port: deployment.ports[0] ?? 0 }])
    t.teardown(() => { cluster.disconnect() })
    t.equal(await cluster.get('cluster:spread-7'), '7')
  })

  // Last: it takes a node down.
  t.test('a node down: operations settle within the deadline, and recover once it is back', async (t) => {
    const commandTimeoutMs = 400
    const store = createRedisStore({ url: deployment.url, keyPrefix: 'node-down:', commandTimeoutMs })
    t.teardown(() => store.close())
    const keys = Array.from({ length: 12 }, (_, i) => `k${i}`)
    for (const key of keys) await store.set(key, key, 600_000)
    const [downNode] = deployment.nodes
    if (downNode === undefined) throw new Error('no nodes')
    await downNode.stop()

    let slowest = 0
    let unavailable = 0
    const until = Date.now() + 3000
    while (Date.now() < until) {
      for (const key of keys) {
        const started = performance.now()
        try {
          await store.get(key)
        } catch (error) {
          if (!(error instanceof StoreUnavailableError)) throw error
          unavailable++
        }
        slowest = Math.max(slowest, performance.now() - started)
      }
    }
    t.ok(unavailable > 0, `keys on the stopped node were unavailable (${unavailable} failures)`)
    t.ok(slowest < commandTimeoutMs + BUSY_MACHINE_SLACK_MS, `no operation took longer than the deadline (slowest ${Math.round(slowest)} ms)`)

    await downNode.start()
    const deadline = Date.now() + 30_000
    while (true) {
      const results = await Promise.allSettled(keys.map((key) => store.get(key)))
      if (results.every((result, i) => result.status === 'fulfilled' && result.value === keys[i])) break
      if (Date.now() > deadline) {
        const seen = results.map((result, i) => result.status === 'fulfilled' ? `${keys[i]}=${String(result.value)}` : `${keys[i]}: ${String(result.reason)}`)
        throw new Error(`cluster did not recover within 30 s: ${seen.join('; ')}`)
      }
      await sleep(200)
    }
    t.pass('every key readable again through the same store')
  })
})
