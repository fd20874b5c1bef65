// 1. POST /uploads/register through media-bff against the floor: the same registration sent
// straight to the emulator with the access token media-bff holds (read from /__emulator/tokens).
//
// Fairness: the emulator's cost per registration grows with the registrations it holds, so each
// run starts from an emptied emulator, and the floor run sends exactly as many registrations as
// the media-bff run before it managed in its time, so both meet the emulator in the same state.
import type { BffStack, EmulatorProcess } from '../lib/stack.js'
import { runLoad, runLoadWatching, type LoadResult } from '../lib/load.js'
import { signedInCookie } from '../lib/sign-in.js'
import { bffRegister, directRegister } from '../lib/targets.js'
import { median } from '../lib/stats.js'
import { profiled } from '../lib/profiling.js'
import type { Plan } from '../lib/plan.js'

export interface RegisterRow {
  connections: number
  floor: LoadResult
  bff: LoadResult
}

/** Alice's newest access token: the one media-bff obtained at the sign-in just made. */
export async function aliceAccessToken (emulator: EmulatorProcess): Promise<string> {
  const token = (await emulator.accessTokens()).filter((t) => t.user === 'alice' && t.scope.split(' ').includes('upload')).at(-1)
  if (token === undefined) throw new Error('the emulator issued no upload-scoped access token to alice')
  return token.token
}

export async function registerScenario (stack: BffStack, plan: Plan): Promise<RegisterRow[]> {
  const { seconds, rounds } = plan.register
  // Warm-up: JIT, connection pools and store maps of both processes.
  await stack.restartEmulator()
  await runLoad({ ...bffRegister(stack.bff.url, await signedInCookie(stack.bff.url)), connections: 10, duration: 1 })

  const rows: RegisterRow[] = []
  for (const connections of plan.register.connections) {
    const floors: LoadResult[] = []
    const bffs: LoadResult[] = []
    for (let round = 0; round < rounds; round++) {
      await stack.restartEmulator()
      const cookie = await signedInCookie(stack.bff.url)
      // CPU watched: [media-bff, emulator].
      const bff = await profiled(plan.profile && round === 0, stack.bff.child, `register-c${connections}`, async () =>
        await runLoadWatching({ ...bffRegister(stack.bff.url, cookie), connections, duration: seconds }, [stack.bff.child, stack.emulator.child]))
      bffs.push(bff)

      await stack.restartEmulator()
      // The sign-in keeps the emulator's state identical to the media-bff run's (one grant).
      await signedInCookie(stack.bff.url)
      const token = await aliceAccessToken(stack.emulator)
      floors.push(await runLoadWatching({ ...directRegister(stack.emulator.baseUrl, token), connections, amount: Math.max(bff.ok, connections) }, [stack.emulator.child]))
    }
    rows.push({ connections, floor: medianResult(floors), bff: medianResult(bffs) })
  }
  return rows
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
