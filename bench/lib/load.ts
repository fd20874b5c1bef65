// One load run with autocannon, from this (the orchestrating) process. Latencies are taken from
// autocannon's per-response event with sub-millisecond precision: its own histogram keeps whole
// milliseconds, too coarse for a target of "1 ms added to p50".
import autocannon, { type Options } from 'autocannon'
import { quantile } from './stats.js'
import type { BenchChild } from './child.js'

export interface LoadResult {
  /** Successful (2xx) responses per second over the run's wall time. */
  rps: number
  p50: number
  p99: number
  ok: number
  /** Non-2xx answers, connection errors and timeouts together. */
  failed: number
  seconds: number
  /** CPU microseconds per successful request of each watched server process (runLoadWatching). */
  cpuUs: number[]
}

export type LoadOptions = Pick<Options, 'url' | 'method' | 'headers' | 'body' | 'connections' | 'duration' | 'amount'>

export async function runLoad (options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = []
  const started = performance.now()
  let last = started
  // sampleInt: autocannon checks for the end of a run once per sample; 100 ms keeps short runs
  // short and ends an `amount` run right after its last answer.
  const instance = autocannon({ timeout: 30, sampleInt: 100, ...options })
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    last = performance.now()
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime)
  })
  const result = await instance
  const seconds = (last - started) / 1000
  const sorted = Float64Array.from(latencies).sort()
  return {
    rps: seconds > 0 ? latencies.length / seconds : 0,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    ok: latencies.length,
    failed: result.non2xx + result.errors + result.timeouts,
    seconds,
    cpuUs: []
  }
}

/** runLoad, plus the CPU time each of `servers` spent per successful request meanwhile. */
export async function runLoadWatching (options: LoadOptions, servers: BenchChild[]): Promise<LoadResult> {
  const before = await Promise.all(servers.map(async (child) => await child.usage()))
  const result = await runLoad(options)
  const after = await Promise.all(servers.map(async (child) => await child.usage()))
  const cpuUs = after.map((usage, i) => {
    const start = before[i] as typeof usage
    return (usage.cpu.user + usage.cpu.system - start.cpu.user - start.cpu.system) / Math.max(1, result.ok)
  })
  return { ...result, cpuUs }
}
