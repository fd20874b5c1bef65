// Real Sentinel and Cluster deployments for the store tests, built from the same redis-server
// binary: a master with a replica watched by one Sentinel, and a three-master Cluster. Ports
// are free loopback ports; everything lives in a temporary directory removed on teardown.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { requireProgram } from '../helpers/programs.js'
import { freePort, waitForPort } from '../helpers/ports.js'

interface Process {
  port: number
  stop: () => Promise<void>
  /** Starts it again with the same arguments (a cluster node rejoins from its nodes file). */
  start: () => Promise<void>
}

async function runRedisServer (args: string[], port: number): Promise<Process> {
  let child: ChildProcess | undefined
  const start = async (): Promise<void> => {
    const started = spawn(requireProgram('redis-server'), args, { stdio: ['ignore', 'pipe', 'inherit'] })
    child = started
    // Redis logs to standard output: kept, so a server that will not start says why.
    let output = ''
    started.stdout?.on('data', (chunk: Buffer) => { output = (output + chunk.toString()).slice(-2000) })
    const exited = new Promise<never>((_resolve, reject) => {
      started.once('exit', (code, signal) => { reject(new Error(`redis-server on port ${port} ended (${code ?? signal}) before it listened: ${output.trim()}`)) })
    })
    exited.catch(() => {})
    await Promise.race([waitForPort(port), exited])
  }
  const stop = async (): Promise<void> => {
    const running = child
    child = undefined
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve())
      running.kill('SIGTERM')
    })
  }
  await start()
  return { port, stop, start }
}

// AOF on, as in production, so a node that is stopped and started again still has its keys.
const common = (port: number, dir: string): string[] => [
  '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '',
  '--appendonly', 'yes', '--appendfsync', 'always', '--appenddirname', `aof-${port}`, '--loglevel', 'warning'
]

async function until (what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(100)
  }
}

export interface SentinelDeployment {
  url: string
  masterName: string
  master: Process
  replica: Process
  /**
   * Stops the master for good (resolves then) and has the Sentinel promote the replica now
   * (SENTINEL FAILOVER: no waiting for it to judge the master down, which a loaded machine can
   * stretch past any bound); `switched` resolves once the Sentinel announces the new master
   * (+switch-master).
   */
  failOver: () => Promise<{ switched: Promise<void> }>
  destroy: () => Promise<void>
}

export async function startSentinelDeployment (): Promise<SentinelDeployment> {
  const dir = await mkdtemp(join(tmpdir(), 'media-bff-sentinel-'))
  const masterName = 'media'
  const [masterPort, replicaPort, sentinelPort] = [await freePort(), await freePort(), await freePort()]
  const running: Process[] = []
  const destroy = async (): Promise<void> => {
    await Promise.all(running.map(async (server) => { await server.stop() }))
    await rm(dir, { recursive: true, force: true })
  }
  try {
    const master = await runRedisServer(common(masterPort, dir), masterPort)
    running.push(master)
    const replica = await runRedisServer([...common(replicaPort, dir), '--replicaof', '127.0.0.1', String(masterPort)], replicaPort)
    running.push(replica)
    running.push(await runSentinel(dir, masterName, masterPort, sentinelPort))
    const failOver = async (): Promise<{ switched: Promise<void> }> => await forceFailover(sentinelPort, masterName, master)
    return { url: `redis+sentinel://127.0.0.1:${sentinelPort}/${masterName}`, masterName, master, replica, failOver, destroy }
  } catch (error) {
    // The servers that did start would keep the test's process alive.
    await destroy()
    throw error
  }
}

/** One Sentinel watching the master, resolved once it sees the replica. */
async function runSentinel (dir: string, masterName: string, masterPort: number, sentinelPort: number): Promise<Process> {
  // Sentinel rewrites its configuration file, so it needs one of its own.
  const config = join(dir, 'sentinel.conf')
  await writeFile(config, [
    `port ${sentinelPort}`,
    'bind 127.0.0.1',
    `dir ${dir}`,
    `sentinel monitor ${masterName} 127.0.0.1 ${masterPort} 1`,
    `sentinel down-after-milliseconds ${masterName} 500`,
    `sentinel failover-timeout ${masterName} 5000`,
    ''
  ].join('\n'))
  const sentinel = await runRedisServer([config, '--sentinel', '--loglevel', 'warning'], sentinelPort)
  const probe = new Redis(sentinelPort, '127.0.0.1')
  try {
    await until('the sentinel to see the replica', async () => {
      const replicas = await probe.call('SENTINEL', 'REPLICAS', masterName) as unknown[]
      return replicas.length === 1
    })
  } catch (error) {
    await sentinel.stop()
    throw error
  } finally {
    probe.disconnect()
  }
  return sentinel
}

async function forceFailover (sentinelPort: number, masterName: string, master: Process): Promise<{ switched: Promise<void> }> {
  const events = new Redis(sentinelPort, '127.0.0.1')
  const command = new Redis(sentinelPort, '127.0.0.1')
  await events.subscribe('+switch-master')
  const seen = { switch: false }
  const announced = new Promise<void>((resolve) => { events.once('message', () => { seen.switch = true; resolve() }) })
  await master.stop()
  const switched = (async () => {
    try {
      // Refused while the Sentinel still sees no replica fit to promote; -INPROG: it runs a
      // failover of its own already. Asked again until it takes it, or the switch comes.
      while (!seen.switch) {
        const asked = await command.call('SENTINEL', 'FAILOVER', masterName).then(() => true, (error: Error) => /INPROG/.test(error.message))
        if (asked) break
        await sleep(200)
      }
      await announced
    } finally {
      events.disconnect()
      command.disconnect()
    }
  })()
  return { switched }
}

export interface ClusterDeployment {
  url: string
  ports: number[]
  nodes: Process[]
  destroy: () => Promise<void>
}

/**
 * Three masters, slots split evenly, joined with CLUSTER MEET (no redis-cli needed). Each node's
 * bus port is a free port of its own: Redis's default (the port + 10000) would fall in the
 * kernel's ephemeral range, where any outgoing connection may hold it and the node cannot start.
 */
export async function startClusterDeployment (): Promise<ClusterDeployment> {
  const dir = await mkdtemp(join(tmpdir(), 'media-bff-cluster-'))
  const ports = [await freePort(), await freePort(), await freePort()]
  const busPorts = [await freePort(), await freePort(), await freePort()]
  const started = await Promise.allSettled(ports.map(async (port, index) => await runRedisServer([
    ...common(port, dir), '--cluster-enabled', 'yes', '--cluster-port', String(busPorts[index]),
    '--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', '2000'
  ], port)))
  const nodes = started.flatMap((result) => result.status === 'fulfilled' ? [result.value] : [])
  const destroy = async (): Promise<void> => {
    await Promise.all(nodes.map(async (node) => { await node.stop() }))
    await rm(dir, { recursive: true, force: true })
  }
  const failed = started.find((result) => result.status === 'rejected')
  if (failed !== undefined) {
    // The nodes that did start would keep the test's process alive.
    await destroy()
    throw failed.reason
  }
  const clients = ports.map((port) => new Redis(port, '127.0.0.1'))
  try {
    const slotsPerNode = Math.ceil(16384 / ports.length)
    await Promise.all(clients.map((client, index) => client.call(
      'CLUSTER', 'ADDSLOTSRANGE', String(index * slotsPerNode), String(Math.min(16383, (index + 1) * slotsPerNode - 1))
    )))
    for (const [index, port] of ports.entries()) {
      if (index > 0) await clients[0]?.call('CLUSTER', 'MEET', '127.0.0.1', String(port), String(busPorts[index]))
    }
    await until('the cluster to be ok on every node', async () => {
      const infos = await Promise.all(clients.map((client) => client.call('CLUSTER', 'INFO') as Promise<string>))
      return infos.every((info) => info.includes('cluster_state:ok') && info.includes(`cluster_known_nodes:${ports.length}`))
    })
  } catch (error) {
    await destroy()
    throw error
  } finally {
    for (const client of clients) client.disconnect()
  }
  return {
    url: `redis+cluster://${ports.map((port) => `127.0.0.1:${port}`).join(',')}`,
    ports,
    nodes,
    destroy
  }
}
