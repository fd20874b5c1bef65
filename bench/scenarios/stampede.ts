// 3. Refresh stampede: N requests that all need a token arrive at once on a grant whose access
// token has expired. media-bff must refresh exactly once (single-flight in a process, a lease
// lock in Redis across processes); everyone else reuses the winner's tokens.
//
// The emulator issues 2-second tokens for the sign-in, then hour-long ones: the refreshed token
// must stay fresh for the whole stampede, or a legitimate second refresh would be counted.
import { Agent, request } from 'undici'
import type { BffStack, ServerProcess } from '../lib/stack.js'
import { signedInCookie } from '../lib/sign-in.js'
import { runLoad } from '../lib/load.js'
import { bffRegister } from '../lib/targets.js'
import { quantile } from '../lib/stats.js'

export interface StampedeResult {
  instances: number
  store: string
  concurrency: number
  /** refresh_token grants the emulator answered during the stampede. */
  refreshes: number
  /** Refresh tokens presented twice (a rotation race): must be 0. */
  reuseDetections: number
  succeeded: number
  p50: number
  p99: number
  max: number
}

const SHORT_TTL_S = 2

/**
 * Stampedes of each size on `instances` media-bff processes of the stack (more than one needs a
 * stack on Redis; missing instances are added). The stack's emulator is emptied first.
 */
export async function stampedeScenario (stack: BffStack, sizes: number[], instances: number): Promise<StampedeResult[]> {
  while (1 + stack.extra.length < instances) await stack.addInstance()
  const servers = [stack.bff, ...stack.extra].slice(0, instances)
  const store = stack.env.REDIS_URL === undefined ? 'memory' : 'redis'
  const dispatcher = new Agent({ connections: null, pipelining: 1 })
  try {
    await stack.restartEmulator()
    // Warm-up on a long-lived grant, so the latencies are those of a running server, not of the
    // JIT compiling the request path.
    const warmCookie = await signedInCookie(stack.bff.url)
    for (const server of servers) await runLoad({ ...bffRegister(server.url, warmCookie), connections: 10, amount: 200 })

    const results: StampedeResult[] = []
    for (const concurrency of sizes) {
      await stack.emulator.configure({ accessTokenTtl: SHORT_TTL_S })
      // Signed in on the first instance; the browser's cookie then reaches any of them.
      const cookie = await signedInCookie(stack.bff.url)
      // The token was issued before this instant, so it has surely expired SHORT_TTL_S later.
      const signedInAt = Date.now()
      await stack.emulator.configure({ accessTokenTtl: 3600 })
      await new Promise((resolve) => setTimeout(resolve, signedInAt + SHORT_TTL_S * 1000 + 100 - Date.now()))

      const before = await stack.emulator.counters()
      const started = performance.now()
      const latencies = await Promise.all(Array.from({ length: concurrency }, async (_, i) => {
        const server = servers[i % servers.length] as ServerProcess
        const answer = await request(`${server.url}/uploads/register`, {
          method: 'POST',
          dispatcher,
          headers: { cookie, 'x-csrf': '1', 'content-type': 'application/json' },
          body: '{"folder_id":0}'
        })
        await answer.body.dump()
        // Latency from the common start: what each of the simultaneous callers waited.
        return answer.statusCode === 200 ? performance.now() - started : Number.NaN
      }))
      const after = await stack.emulator.counters()
      const ok = Float64Array.from(latencies.filter((ms) => !Number.isNaN(ms))).sort()
      results.push({
        instances,
        store,
        concurrency,
        refreshes: after.tokenGrants.refresh_token - before.tokenGrants.refresh_token,
        reuseDetections: after.refreshReuseDetections - before.refreshReuseDetections,
        succeeded: ok.length,
        p50: quantile(ok, 0.5),
        p99: quantile(ok, 0.99),
        max: ok.at(-1) ?? Number.NaN
      })
    }
    return results
  } finally {
    await dispatcher.close()
  }
}
