// Starts a real Prometheus (Debian's prometheus package) on a free loopback port, with the
// configuration a test gives it and its storage in a temporary directory, and asks its HTTP API.
import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { request } from 'undici'
import { stringify } from 'yaml'
import { stopChild } from './child-process.js'
import { requireProgram } from './programs.js'
import { freePort } from './ports.js'

/** One series of an instant query's answer: its labels and [time, value]. */
export interface QuerySample {
  metric: Record<string, string>
  value: [number, string]
}

export interface RunningPrometheus {
  url: string
  /** A temporary directory of this Prometheus's own, removed when it stops: for files its configuration names. */
  dir: string
  /** An instant query; rejects with Prometheus's own error when it refuses the expression. */
  query: (expr: string) => Promise<QuerySample[]>
  /** GET of an API path (`/api/v1/targets`): its `data`. */
  api: <T>(path: string) => Promise<T>
  /** What it printed to stderr (its log). */
  log: () => string
  stop: () => Promise<void>
}

interface ApiAnswer<T> { status: 'success' | 'error', data: T, errorType?: string, error?: string }

/**
 * Starts Prometheus once `writeConfig` has returned its configuration (given the directory, to
 * write files next to it), and resolves when /-/ready answers.
 */
export async function startPrometheus (writeConfig: (dir: string) => Promise<object> | object): Promise<RunningPrometheus> {
  const binary = requireProgram('prometheus')
  const dir = await mkdtemp(join(tmpdir(), 'media-bff-prometheus-'))
  const configFile = join(dir, 'prometheus.yml')
  await writeFile(configFile, stringify(await writeConfig(dir)))
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const child = spawn(binary, [
    `--config.file=${configFile}`,
    `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--log.level=warn'
  ], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8') })
  const stop = async (): Promise<void> => {
    await stopChild(child)
    await rm(dir, { recursive: true, force: true })
  }

  const api = async <T>(path: string): Promise<T> => {
    const response = await request(`${url}${path}`)
    const answer = await response.body.json() as ApiAnswer<T>
    if (answer.status !== 'success') throw new Error(`Prometheus refused ${path}: ${answer.errorType ?? ''} ${answer.error ?? ''}`)
    return answer.data
  }

  const deadline = Date.now() + 20_000
  while (true) {
    if (child.exitCode !== null) {
      await rm(dir, { recursive: true, force: true })
      throw new Error(`prometheus exited (${child.exitCode}) before it was ready:\n${stderr}`)
    }
    const ready = await request(`${url}/-/ready`).then(async (response) => { await response.body.dump(); return response.statusCode === 200 }, () => false)
    if (ready) break
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`prometheus was not ready within 20 s:\n${stderr}`)
    }
    await sleep(100)
  }

  return {
    url,
    dir,
    query: async (expr) => (await api<{ result: QuerySample[] }>(`/api/v1/query?query=${encodeURIComponent(expr)}`)).result,
    api,
    log: () => stderr,
    stop
  }
}
