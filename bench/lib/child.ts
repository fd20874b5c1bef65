// The parent's side of a benchmark child process: every server under test runs in a process of
// its own, so its CPU time and RSS are its own and the load generator never shares its event
// loop. Children speak a tiny request/reply protocol over the IPC channel.
import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export interface ChildUsage {
  /** Microseconds, as process.cpuUsage() reports them. */
  cpu: { user: number, system: number }
  memory: NodeJS.MemoryUsage
}

/** Event-loop lateness in ms over a window (child-host.ts, loopDelayStart/Stop). */
export interface LoopDelay { p50: number, p99: number, max: number, samples: number }

export interface BenchChild {
  pid: number
  call: <T = unknown>(type: string, payload?: Record<string, unknown>) => Promise<T>
  usage: () => Promise<ChildUsage>
  stop: () => Promise<void>
}

interface Reply { id: number, ok: boolean, value?: unknown, error?: string }

let nextId = 1

/**
 * Forks `script` (a path relative to bench/lib) under the same TypeScript loader as this process,
 * on this process's Node or the one `execPath` names (scenarios/node-versions.ts).
 */
export function startChild (script: string, nodeFlags: string[] = [], execPath = process.execPath, { readOutput = false } = {}): BenchChild {
  const child: ChildProcess = fork(fileURLToPath(new URL(script, import.meta.url)), [], {
    execPath,
    // process.execArgv carries tsx's loader flags, whichever way the parent was started.
    execArgv: [...process.execArgv, ...nodeFlags],
    // readOutput: the child's standard output is a pipe this process reads and discards, as a
    // container runtime reads a server's log lines.
    stdio: ['ignore', readOutput ? 'pipe' : 'inherit', 'inherit', 'ipc']
  })
  child.stdout?.resume()
  const pending = new Map<number, { resolve: (value: unknown) => void, reject: (error: Error) => void }>()
  let exited = false
  child.on('message', (message: Reply) => {
    const waiter = pending.get(message.id)
    if (waiter === undefined) return
    pending.delete(message.id)
    if (message.ok) waiter.resolve(message.value)
    else waiter.reject(new Error(`${script}: ${message.error ?? 'failed'}`))
  })
  child.on('exit', (code, signal) => {
    exited = true
    for (const waiter of pending.values()) waiter.reject(new Error(`${script} exited (${String(code ?? signal)})`))
    pending.clear()
  })

  const call = async <T>(type: string, payload: Record<string, unknown> = {}): Promise<T> => {
    if (exited) throw new Error(`${script} is not running`)
    const id = nextId++
    return await new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject })
      child.send({ id, type, ...payload })
    })
  }

  return {
    pid: child.pid ?? -1,
    call,
    usage: async () => await call<ChildUsage>('usage'),
    stop: async () => {
      if (exited) return
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()))
      // A graceful stop lets --cpu-prof write its profile; a child that hangs is killed.
      await call('stop').catch(() => {})
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await gone
      clearTimeout(timer)
    }
  }
}
