// Runs media-bff the way the container does: src/server.ts (or the compiled dist/src/server.js)
// in a process of its own, configured only by its environment. Tests can read its log lines,
// signal it, read its exit code and start it again on the same port (a restart, or a key
// rotation with a changed environment).
import { setTimeout as sleep } from 'node:timers/promises'
import { spawn, type ChildProcess } from 'node:child_process'
import { get } from 'node:http'
import { fileURLToPath } from 'node:url'
import { nodeArgsFor } from './loaded-as.js'
import { freePort } from './ports.js'

const repoRoot = fileURLToPath(new URL('../../', import.meta.url))

export type Env = Record<string, string | undefined>

/** One line of stdout: pino's JSON, or `{ msg }` for anything else. */
export interface LogLine {
  level?: number
  msg?: string
  /** Which start of the process printed it (1 for the first, 2 after a restart, ...). */
  run: number
  [field: string]: unknown
}

export interface BffProcess {
  readonly name: string
  readonly port: number
  /** http://127.0.0.1:port, the replica itself, without the proxy. */
  readonly url: string
  readonly env: Env
  readonly running: boolean
  logs: () => LogLine[]
  stderr: () => string
  /** Resolves with the first log line (printed already or later) that `match` accepts. */
  waitForLog: (match: (line: LogLine) => boolean, timeoutMs?: number) => Promise<LogLine>
  /** Sends the signal and resolves with the exit code (null when a signal killed it). */
  stop: (signal?: NodeJS.Signals, timeoutMs?: number) => Promise<number | null>
  /** Stops it (SIGTERM) and starts it again on the same port, with `changes` applied to its environment. */
  restart: (changes?: Env) => Promise<void>
}

export interface BffProcessOptions {
  name?: string
  env: Env
  port?: number
  readyTimeoutMs?: number
  /** Where node runs; default the repository. */
  cwd?: string
  /** node's arguments; default the sources through tsx. The image's CMD is ['dist/src/server.js']. */
  args?: string[]
}

// Only what node and tap need is inherited: a REDIS_URL or PUBLIC_URL in the shell running the
// tests must not leak into the process under test.
const INHERITED = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'NODE_OPTIONS', 'NODE_V8_COVERAGE']

function baseEnv (): Env {
  const env: Env = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (INHERITED.includes(name) || name.startsWith('TAP') || name.startsWith('_TAPJS')) env[name] = value
  }
  return env
}

// A test process that dies (timeout, crash) must not leave servers behind holding ports.
const living = new Set<ChildProcess>()
process.once('exit', () => { for (const child of living) child.kill('SIGKILL') })

export async function startBffProcess (options: BffProcessOptions): Promise<BffProcess> {
  const name = options.name ?? 'media-bff'
  const port = options.port ?? await freePort()
  const readyTimeoutMs = options.readyTimeoutMs ?? 30_000
  let env: Env = { ...options.env, HOST: '127.0.0.1', PORT: String(port) }
  const lines: LogLine[] = []
  const waiters = new Set<{ match: (line: LogLine) => boolean, resolve: (line: LogLine) => void }>()
  let stderr = ''
  let run = 0
  let child: ChildProcess | undefined

  const record = (text: string): void => {
    let line: LogLine
    try {
      line = { ...JSON.parse(text) as object, run }
    } catch {
      line = { msg: text, run }
    }
    lines.push(line)
    for (const waiter of waiters) {
      if (waiter.match(line)) {
        waiters.delete(waiter)
        waiter.resolve(line)
      }
    }
  }

  const launch = async (): Promise<void> => {
    run += 1
    const started = spawn(process.execPath, options.args ?? nodeArgsFor('src/server'), {
      cwd: options.cwd ?? repoRoot,
      env: { ...baseEnv(), ...env },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    child = started
    living.add(started)
    started.once('exit', () => { living.delete(started) })
    let pending = ''
    started.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk
      const complete = pending.split('\n')
      pending = complete.pop() ?? ''
      for (const text of complete) if (text.trim() !== '') record(text)
    })
    started.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
    await waitUntilHealthy(started, port, `${(env.BASE_PATH ?? '').replace(/\/+$/, '')}/healthz`, readyTimeoutMs, () => `${name}:\n${stderr}\n${lines.map((l) => JSON.stringify(l)).join('\n')}`)
  }

  const stop = async (signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 30_000): Promise<number | null> => {
    const running = child
    if (running === undefined) return null
    if (running.exitCode !== null || running.signalCode !== null) return running.exitCode
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        running.kill('SIGKILL')
        reject(new Error(`${name} did not exit within ${timeoutMs} ms of ${signal}`))
      }, timeoutMs)
      running.once('exit', (code) => {
        clearTimeout(timer)
        resolve(code)
      })
      running.kill(signal)
    })
  }

  await launch()
  return {
    name,
    port,
    url: `http://127.0.0.1:${port}`,
    get env () { return env },
    get running () { return child !== undefined && child.exitCode === null && child.signalCode === null },
    logs: () => [...lines],
    stderr: () => stderr,
    waitForLog: async (match, timeoutMs = 10_000) => {
      const found = lines.find(match)
      if (found !== undefined) return found
      return await new Promise((resolve, reject) => {
        const waiter = {
          match,
          resolve: (line: LogLine) => {
            clearTimeout(timer)
            resolve(line)
          }
        }
        const timer = setTimeout(() => {
          waiters.delete(waiter)
          reject(new Error(`${name} printed no matching log line within ${timeoutMs} ms`))
        }, timeoutMs)
        waiters.add(waiter)
      })
    },
    stop,
    restart: async (changes = {}) => {
      const code = await stop('SIGTERM')
      if (code !== 0) throw new Error(`${name} exited with ${String(code)} when stopped for a restart:\n${stderr}`)
      env = { ...env, ...changes }
      await launch()
    }
  }
}

/** Polls GET /healthz (under BASE_PATH) until it answers 200; fails at once if the process exits first. */
async function waitUntilHealthy (child: ChildProcess, port: number, path: string, timeoutMs: number, describe: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (true) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`media-bff exited (${String(child.exitCode ?? child.signalCode)}) before it was healthy. ${describe()}`)
    }
    if (await healthz(port, path)) return
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`media-bff was not healthy within ${timeoutMs} ms. ${describe()}`)
    }
    await sleep(100)
  }
}

async function healthz (port: number, path: string): Promise<boolean> {
  return await new Promise((resolve) => {
    // agent: false, so the probe leaves no keep-alive connection for a later close to wait on.
    const request = get({ host: '127.0.0.1', port, path, agent: false, timeout: 1000 }, (response) => {
      response.resume()
      resolve(response.statusCode === 200)
    })
    request.on('timeout', () => { request.destroy() })
    request.on('error', () => { resolve(false) })
  })
}
