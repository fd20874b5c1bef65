// 2. GET /auth/session signed in, against a bare Fastify route that returns the same JSON: what
// the session machinery (cookie signature, store read, grant read and decryption, hooks, schema)
// costs on the most frequent call. Runs alternate bare/media-bff/media-bff/bare so drift in the
// machine's load hits both sides alike.
import { request } from 'undici'
import type { BffStack, ServerFlags } from '../lib/stack.js'
import { startBareProcess } from '../lib/stack.js'
import { runLoad, runLoadWatching, type LoadResult } from '../lib/load.js'
import { signedInCookie } from '../lib/sign-in.js'
import { sessionState } from '../lib/targets.js'
import { profiled } from '../lib/profiling.js'
import type { Plan } from '../lib/plan.js'
import { medianResult } from './register.js'

export interface SessionRow {
  store: string
  connections: number
  bare: LoadResult
  bff: LoadResult
}

export async function sessionScenario (stack: BffStack, store: string, plan: Plan, flags: ServerFlags = {}): Promise<SessionRow> {
  const { connections, seconds, rounds } = plan.session
  const cookie = await signedInCookie(stack.bff.url)
  const answer = await request(`${stack.bff.url}/auth/session`, { headers: { cookie, 'x-csrf': '1' } })
  const body = await answer.body.json() as { authenticated?: boolean }
  if (body.authenticated !== true) throw new Error('the benchmark session is not signed in')
  const bare = await startBareProcess(body, undefined, flags)
  try {
    const bareTarget = { ...sessionState(bare.url, cookie), connections }
    const bffTarget = { ...sessionState(stack.bff.url, cookie), connections }
    await runLoad({ ...bareTarget, duration: 1 })
    await runLoad({ ...bffTarget, duration: 1 })
    const bares: LoadResult[] = []
    const bffs: LoadResult[] = []
    for (let round = 0; round < rounds; round++) {
      const runBff = async (): Promise<void> => {
        bffs.push(await profiled(plan.profile && round === 0, stack.bff.child, `session-${store}`, async () => await runLoadWatching({ ...bffTarget, duration: seconds }, [stack.bff.child])))
      }
      const runBare = async (): Promise<void> => { bares.push(await runLoadWatching({ ...bareTarget, duration: seconds }, [bare.child])) }
      if (round % 2 === 0) {
        await runBare()
        await runBff()
      } else {
        await runBff()
        await runBare()
      }
    }
    return { store, connections, bare: medianResult(bares), bff: medianResult(bffs) }
  } finally {
    await bare.child.stop()
  }
}
