// GET /auth/check signed in, as a reverse proxy asks it before each of a page's requests, against a
// bare Fastify route with a fixed answer: with the answer kept per session (AUTH_CHECK_CACHE, 5 s
// by default) and without (AUTH_CHECK_CACHE=0: a store read and an assertion signed each time).
// On Redis, the store of any deployment of two replicas, where a read is a round trip. Runs
// alternate so drift in the machine's load hits every side alike.
import { request } from 'undici'
import type { BffStack } from '../lib/stack.js'
import { startBareProcess } from '../lib/stack.js'
import { runLoad, runLoadWatching, type LoadOptions, type LoadResult } from '../lib/load.js'
import { signedInCookie } from '../lib/sign-in.js'
import type { Plan } from '../lib/plan.js'
import { medianResult } from './register.js'
import { profiled } from '../lib/profiling.js'

export interface AuthCheckRow {
  store: string
  connections: number
  bare: LoadResult
  kept: LoadResult
  unkept: LoadResult
}

const check = (url: string, cookie: string): LoadOptions => ({ url: `${url}/auth/check`, method: 'GET', headers: { cookie } })

export async function authCheckScenario (stack: BffStack, store: string, plan: Plan): Promise<AuthCheckRow> {
  const { connections, seconds, rounds } = plan.session
  const cookie = await signedInCookie(stack.bff.url)
  const unkept = await stack.addInstance({ AUTH_CHECK_CACHE: '0' })
  const bare = await startBareProcess({ authenticated: true })
  try {
    for (const url of [stack.bff.url, unkept.url]) {
      const answer = await request(`${url}/auth/check`, { headers: { cookie } })
      await answer.body.dump()
      if (answer.statusCode !== 200 || typeof answer.headers['x-media-bff-assertion'] !== 'string') throw new Error(`the benchmark's check is not signed in (${answer.statusCode})`)
    }
    const targets = {
      bare: { url: `${bare.url}/auth/session`, method: 'GET', headers: { cookie }, connections } satisfies LoadOptions,
      kept: { ...check(stack.bff.url, cookie), connections },
      unkept: { ...check(unkept.url, cookie), connections }
    }
    const children = { bare: bare.child, kept: stack.bff.child, unkept: unkept.child }
    for (const target of Object.values(targets)) await runLoad({ ...target, duration: 1 })
    const runs: Record<keyof typeof targets, LoadResult[]> = { bare: [], kept: [], unkept: [] }
    const order = ['bare', 'kept', 'unkept'] as const
    for (let round = 0; round < rounds; round++) {
      for (const side of round % 2 === 0 ? order : [...order].reverse()) {
        const run = async (): Promise<LoadResult> => await runLoadWatching({ ...targets[side], duration: seconds }, [children[side]])
        runs[side].push(side === 'bare' ? await run() : await profiled(plan.profile && round === 0, children[side], `auth-check-${side}-${store}`, run))
      }
    }
    return { store, connections, bare: medianResult(runs.bare), kept: medianResult(runs.kept), unkept: medianResult(runs.unkept) }
  } finally {
    await bare.child.stop()
    await unkept.child.stop()
    stack.extra.splice(stack.extra.indexOf(unkept), 1)
  }
}
