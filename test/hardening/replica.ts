// media-bff as a process of its own (src/server.ts, configured only by its environment), for the
// hardening suites: a crash then fails one case instead of killing the test runner, every line
// the process prints is kept for the secrets search, and its RSS is its own.
import { spawn, type ChildProcess } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { Browser } from '../helpers/http-client.js'
import { nodeArgsFor } from '../helpers/loaded-as.js'
import { freePort } from '../helpers/ports.js'

const repoRoot = fileURLToPath(new URL('../../', import.meta.url))

export type Env = Record<string, string | undefined>

export interface Replica {
  name: string
  url: string
  pid: number
  /** Everything printed so far, stdout and stderr. */
  output: () => string
  alive: () => boolean
  /** Resident set size in KiB, from /proc. */
  rssKb: () => Promise<number>
  browser: (headers?: Record<string, string>) => Browser
  /** SIGTERM, and SIGKILL if it has not exited within 10 s. */
  stop: () => Promise<void>
  /** SIGKILL: for a replica that is already failing (a crash leaves it closing for 20 s). */
  kill: () => Promise<void>
}

// Only what node needs is inherited: a REDIS_URL in the developer's shell must not leak in.
const INHERITED = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'NODE_OPTIONS']

// A runner that dies must not leave servers holding ports.
const living = new Set<ChildProcess>()
process.once('exit', () => { for (const child of living) child.kill('SIGKILL') })

export async function startReplica (options: { name: string, env: Env, port?: number }): Promise<Replica> {
  const port = options.port ?? await freePort()
  const inherited: Env = {}
  for (const name of INHERITED) if (process.env[name] !== undefined) inherited[name] = process.env[name]
  const child = spawn(process.execPath, nodeArgsFor('src/server'), {
    cwd: repoRoot,
    env: { ...inherited, ...options.env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  living.add(child)
  child.once('exit', () => { living.delete(child) })
  const chunks: string[] = []
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { chunks.push(chunk) })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { chunks.push(chunk) })
  const url = `http://127.0.0.1:${port}`
  const alive = (): boolean => child.exitCode === null && child.signalCode === null
  try {
    await waitHealthy(url, alive, () => chunks.join(''))
  } catch (error) {
    child.kill('SIGKILL')
    throw error
  }
  return {
    name: options.name,
    url,
    pid: child.pid ?? -1,
    output: () => chunks.join(''),
    alive,
    rssKb: async () => {
      const status = await readFile(`/proc/${String(child.pid)}/status`, 'utf8')
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN)
    },
    browser: (headers = {}) => new Browser(url, headers),
    stop: async () => { await terminate(child, 'SIGTERM') },
    kill: async () => { await terminate(child, 'SIGKILL') }
  }
}

async function terminate (child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  await new Promise<void>((resolve) => {
    // close-with-grace waits for in-flight requests; a test never needs more than a few seconds.
    const force = setTimeout(() => child.kill('SIGKILL'), 10_000)
    child.once('exit', () => { clearTimeout(force); resolve() })
    child.kill(signal)
  })
}

async function waitHealthy (url: string, alive: () => boolean, output: () => string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (true) {
    if (!alive()) throw new Error(`media-bff exited before it was healthy:\n${output()}`)
    try {
      if ((await fetch(`${url}/healthz`)).status === 200) return
    } catch {}
    if (Date.now() > deadline) throw new Error(`media-bff was not healthy within ${timeoutMs} ms:\n${output()}`)
    await sleep(100)
  }
}
