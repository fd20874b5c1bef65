// The container engine's command line, for `npm run test:container`: `docker` or anything that
// speaks its language (`podman`), named by CONTAINER_ENGINE, with CONTAINER_ARGS (split on
// spaces) put before every subcommand, for the engine's global options (a context, a host, a
// storage driver). Containers made here publish their ports on 127.0.0.1 only.
import { spawn, spawnSync } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'

export interface Outcome {
  code: number | null
  stdout: string
  stderr: string
}

export class ContainerEngine {
  readonly name: string
  private readonly globalArgs: string[]

  constructor (env: NodeJS.ProcessEnv = process.env) {
    this.name = env.CONTAINER_ENGINE ?? 'docker'
    this.globalArgs = (env.CONTAINER_ARGS ?? '').split(/\s+/).filter((arg) => arg !== '')
  }

  /** Runs one engine command; a command still running after timeoutMs is killed and fails. */
  async run (args: string[], options: { cwd?: string, timeoutMs?: number } = {}): Promise<Outcome> {
    const child = spawn(this.name, [...this.globalArgs, ...args], { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
    const timeoutMs = options.timeoutMs ?? 60_000
    const timer = setTimeout(() => { child.kill('SIGKILL') }, timeoutMs)
    try {
      const code = await new Promise<number | null>((resolve, reject) => {
        child.once('error', reject)
        child.once('close', (exitCode) => { resolve(exitCode) })
      })
      if (code === null) stderr += `\n(${this.name} ${args[0] ?? ''} killed after ${timeoutMs} ms)`
      return { code, stdout, stderr }
    } catch (error) {
      throw new Error(`cannot run ${this.name} (CONTAINER_ENGINE): ${(error as Error).message}`)
    } finally {
      clearTimeout(timer)
    }
  }

  /** Like run, but a failure throws with the engine's own words; resolves to stdout, trimmed. */
  async ok (args: string[], options: { cwd?: string, timeoutMs?: number } = {}): Promise<string> {
    const outcome = await this.run(args, options)
    if (outcome.code !== 0) throw new Error(`${this.name} ${args.join(' ')} exited ${String(outcome.code)}:\n${tail(outcome.stderr || outcome.stdout)}`)
    return outcome.stdout.trim()
  }

  /** For clean-up on any exit path, signal handlers and process exit included: synchronous. */
  runSync (args: string[]): void {
    spawnSync(this.name, [...this.globalArgs, ...args], { stdio: 'ignore', timeout: 60_000 })
  }
}

/** `-p` for a port published on the loopback address only, never on the machine's others. */
export function publishOnLoopback (hostPort: number, containerPort: number): string[] {
  return ['-p', `127.0.0.1:${hostPort}:${containerPort}`]
}

/**
 * Waits until `url` answers 200, for at most timeoutMs, asking `alive` between tries so that a
 * container that has died fails at once with its logs instead of at the deadline.
 */
export async function waitForOk (url: string, alive: () => Promise<void>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let last = 'no answer'
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5_000) })
      await response.arrayBuffer()
      if (response.ok) return
      last = `answered ${response.status}`
    } catch (error) {
      last = (error as Error).message
    }
    await alive()
    await sleep(250)
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms (${last})`)
}

/** The last lines of a long output, for error messages. */
export function tail (text: string, lines = 40): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n')
}
