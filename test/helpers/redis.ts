// Starts a real redis-server on a free loopback port in a temporary directory. AOF is on so a
// stop/start keeps the data, as in production.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { requireProgram } from './programs.js'
import { freePort, waitForPort } from './ports.js'

export interface RedisServer {
  url: string
  port: number
  /** Stops the server (SIGTERM, waits for exit). Data stays in the directory. */
  stop: () => Promise<void>
  /** Starts it again on the same port and directory. */
  start: () => Promise<void>
  /** Stops it and removes its directory. */
  destroy: () => Promise<void>
}

export interface StartRedisOptions {
  /** More redis-server arguments, after the defaults (a later one wins): ['--maxmemory-policy', 'noeviction']. */
  args?: string[]
  /** Serve TLS only, with this certificate and key (the url is then rediss://). */
  tls?: { certFile: string, keyFile: string }
}

export async function startRedis ({ args = [], tls }: StartRedisOptions = {}): Promise<RedisServer> {
  const binary = requireProgram('redis-server')
  const dir = await mkdtemp(join(tmpdir(), 'media-bff-redis-'))
  const port = await freePort()
  let child: ChildProcess | undefined

  const start = async (): Promise<void> => {
    const listen = tls === undefined
      ? ['--port', String(port)]
      : ['--port', '0', '--tls-port', String(port), '--tls-cert-file', tls.certFile, '--tls-key-file', tls.keyFile, '--tls-auth-clients', 'no']
    child = spawn(binary, [
      ...listen, '--bind', '127.0.0.1', '--dir', dir,
      '--appendonly', 'yes', '--appendfsync', 'always', '--save', '',
      '--protected-mode', 'yes', '--loglevel', 'warning',
      ...args
    ], { stdio: ['ignore', 'ignore', 'inherit'] })
    await waitForPort(port)
  }
  const stop = async (): Promise<void> => {
    const running = child
    child = undefined
    if (running === undefined || running.exitCode !== null) return
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve())
      running.kill('SIGTERM')
    })
  }
  await start()
  return {
    url: `${tls === undefined ? 'redis' : 'rediss'}://127.0.0.1:${port}`,
    port,
    stop,
    start,
    destroy: async () => { await stop(); await rm(dir, { recursive: true, force: true }) }
  }
}
