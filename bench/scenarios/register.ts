// 1. POST /uploads/register through media-bff against two references: the bare hop (the
// reference: a bare Fastify server that forwards the same registration with undici and a fixed
// Bearer token, lib/bare-hop-child.ts) and the floor (the same registration sent straight to the
// emulator, which no proxy can reach). Both use the access token media-bff holds (read from
// /__emulator/tokens).
//
// Fairness: the emulator's cost per registration grows with the registrations it holds, so each
// run starts from an emptied emulator with one fresh grant, and the run that goes first sets the
// count: the others send exactly as many registrations as it managed in its time, so all three
// meet the emulator in the same states. media-bff goes first in even rounds (0, 2, ...), the hop in
// odd ones, the floor always last: with an odd number of rounds (3 in the full plan, 1 with
// --quick) media-bff goes first once more than the hop.
import type { BffStack, EmulatorProcess } from '../lib/stack.js'
import { startBareHop } from '../lib/stack.js'
import { runLoad, runLoadWatching, type LoadOptions, type LoadResult } from '../lib/load.js'
import { signedInCookie } from '../lib/sign-in.js'
import { bffRegister, directRegister } from '../lib/targets.js'
import { median } from '../lib/stats.js'
import { profiled } from '../lib/profiling.js'
import type { Plan } from '../lib/plan.js'

export interface RegisterRow {
  connections: number
  /** The emulator directly. CPU watched: [emulator]. */
  floor: LoadResult
  /** The bare Fastify+undici hop. CPU watched: [hop, emulator]. */
  hop: LoadResult
  /** CPU watched: [media-bff, emulator]. */
  bff: LoadResult
}

/** Alice's newest access token: the one media-bff obtained at the sign-in just made. */
export async function aliceAccessToken (emulator: EmulatorProcess): Promise<string> {
  const token = (await emulator.accessTokens()).filter((t) => t.user === 'alice' && t.scope.split(' ').includes('upload')).at(-1)
  if (token === undefined) throw new Error('the emulator issued no upload-scoped access token to alice')
  return token.token
}

/** `store` names the stack's store in its profiles' names (register-c10, register-redis-c10). */
export async function registerScenario (stack: BffStack, plan: Plan, store: 'memory' | 'redis' = 'memory'): Promise<RegisterRow[]> {
  const { seconds, rounds } = plan.register
  // Warm-up: JIT, connection pools and store maps of every process.
  await stack.restartEmulator()
  const warmCookie = await signedInCookie(stack.bff.url)
  const hop = await startBareHop(stack.emulator, await aliceAccessToken(stack.emulator))
  try {
    await runLoad({ ...bffRegister(stack.bff.url, warmCookie), connections: 10, duration: 1 })
    // The hop gets the very same request (cookie included), and ignores what it does not need.
    await runLoad({ ...bffRegister(hop.url, warmCookie), connections: 10, duration: 1 })

    // An emptied emulator holding one grant (the sign-in), as media-bff's run meets it.
    const freshGrant = async (): Promise<{ cookie: string, token: string }> => {
      await stack.restartEmulator()
      const cookie = await signedInCookie(stack.bff.url)
      const token = await aliceAccessToken(stack.emulator)
      await hop.setToken(token)
      return { cookie, token }
    }

    const rows: RegisterRow[] = []
    for (const connections of plan.register.connections) {
      const floors: LoadResult[] = []
      const hops: LoadResult[] = []
      const bffs: LoadResult[] = []
      for (let round = 0; round < rounds; round++) {
        // `limit`: a duration for the run that goes first, then the count it managed.
        const runBff = async (limit: Pick<LoadOptions, 'duration' | 'amount'>): Promise<LoadResult> => {
          const { cookie } = await freshGrant()
          const result = await profiled(plan.profile && round === 0, stack.bff.child, `register-${store === 'redis' ? 'redis-' : ''}c${connections}`, async () =>
            await runLoadWatching({ ...bffRegister(stack.bff.url, cookie), connections, ...limit }, [stack.bff.child, stack.emulator.child]))
          bffs.push(result)
          return result
        }
        const runHop = async (limit: Pick<LoadOptions, 'duration' | 'amount'>): Promise<LoadResult> => {
          const { cookie } = await freshGrant()
          const result = await runLoadWatching({ ...bffRegister(hop.url, cookie), connections, ...limit }, [hop.child, stack.emulator.child])
          hops.push(result)
          return result
        }
        const first = round % 2 === 0 ? await runBff({ duration: seconds }) : await runHop({ duration: seconds })
        const amount = Math.max(first.ok, connections)
        if (round % 2 === 0) await runHop({ amount })
        else await runBff({ amount })
        const { token } = await freshGrant()
        floors.push(await runLoadWatching({ ...directRegister(stack.emulator.baseUrl, token), connections, amount }, [stack.emulator.child]))
      }
      rows.push({ connections, floor: medianResult(floors), hop: medianResult(hops), bff: medianResult(bffs) })
    }
    return rows
  } finally {
    await hop.child.stop()
  }
}

/** Field-wise median over rounds (noise on a shared machine comes in bursts). */
export function medianResult (results: LoadResult[]): LoadResult {
  const of = (pick: (r: LoadResult) => number): number => median(results.map(pick))
  return {
    rps: of((r) => r.rps),
    p50: of((r) => r.p50),
    p99: of((r) => r.p99),
    ok: results.reduce((sum, r) => sum + r.ok, 0),
    failed: results.reduce((sum, r) => sum + r.failed, 0),
    seconds: results.reduce((sum, r) => sum + r.seconds, 0),
    cpuUs: (results[0]?.cpuUs ?? []).map((_, i) => of((r) => r.cpuUs[i] ?? Number.NaN))
  }
}
