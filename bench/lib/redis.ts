// A redis-server for the benchmark: loopback, free port, no persistence. The test helper's
// server fsyncs every write (AOF always), which would make the disk, not media-bff, the thing
// measured; a session cache in production runs everysec or without persistence.
import { spawn } from 'node:child_process'
import { Redis } from 'ioredis'
import { requireProgram } from '../../test/helpers/programs.js'
import { freePort, waitForPort } from '../../test/helpers/ports.js'

export interface BenchRedis {
  url: string
  /** A client for inspecting keys (MEMORY USAGE, INFO); not the one media-bff uses. */
  client: Redis
  stop: () => Promise<void>
}

export async function startBenchRedis (): Promise<BenchRedis> {
  const port = await freePort()
  const child = spawn(requireProgram('redis-server'), [
    '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'
  ], { stdio: ['ignore', 'ignore', 'inherit'] })
  // redis-server does not die with its parent: make sure it goes when this process exits.
  const killOnExit = (): void => { child.kill() }
  process.once('exit', killOnExit)
  await waitForPort(port)
  const url = `redis://127.0.0.1:${port}`
  const client = new Redis(url)
  return {
    url,
    client,
    stop: async () => {
      process.off('exit', killOnExit)
      client.disconnect()
      if (child.exitCode !== null) return
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      })
    }
  }
}
