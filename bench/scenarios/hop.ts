// The targets' own measurement: POST /uploads/register and the relayed GET /api/folders/0/contents
// through media-bff, beside the bare Fastify+undici hop (lib/bare-hop-child.ts), both in front of a
// stub of the service as cheap as the hop's own work (lib/stub-service-child.ts), so what is left
// is what media-bff adds. The emulator (register.ts, relay.ts) spends more on a call than the hop
// does, which dilutes that. Each on the in-memory stores and on Redis; and once more with the
// request logs production writes (LOG_LEVEL=info, the production logger, read from a pipe as a
// container runtime reads it) against the same media-bff logging only warnings.
//
// The two sides take turns, `rounds` times, `seconds` each at `connections`: media-bff first in
// even rounds, the hop in odd ones; the median of each side's runs. The stub keeps no state, so
// no run finds it busier than another.
import { freePort } from '../../test/helpers/ports.js'
import { TEST_SESSION_SECRET } from '../../test/helpers/bff.js'
import { Browser } from '../../test/helpers/http-client.js'
import { signInWithoutConsent } from '../../test/helpers/sign-in.js'
import { startChild } from '../lib/child.js'
import { benchTokenKeys, startBffProcess, type ServerProcess } from '../lib/stack.js'
import { runLoad, runLoadWatching, type LoadOptions, type LoadResult } from '../lib/load.js'
import { bffFolderContents, bffRegister } from '../lib/targets.js'
import { medianResult } from './register.js'
import { profiled } from '../lib/profiling.js'
import type { Plan } from '../lib/plan.js'

export type HopCall = 'register' | 'relay'

export interface HopRow {
  call: HopCall
  store: 'memory' | 'redis'
  /** The request logs media-bff writes: none (warnings only), or production's (info). */
  logs: 'warn' | 'info'
  /** CPU watched: [hop, stub]. */
  hop: LoadResult
  /** CPU watched: [media-bff, stub]. */
  bff: LoadResult
}

export interface HopResult {
  connections: number
  rows: HopRow[]
  /** What the stub spends per call, from the runs above (µs). */
  stubCpuUs: number
}

/** A signed-in session of media-bff's, in front of the stub (no consent page). */
async function signedIn (bff: ServerProcess): Promise<string> {
  const browser = new Browser(bff.url)
  const landed = await signInWithoutConsent(browser)
  if (landed === undefined) throw new Error('the sign-in through the stub did not come back')
  const cookie = browser.cookieHeader()
  if (cookie === undefined || (await browser.get('/auth/session')).json().authenticated !== true) throw new Error('signed in through the stub, but no session')
  return cookie
}

export async function hopScenario (plan: Plan, redisUrl: string | undefined): Promise<HopResult> {
  const { connections, seconds, rounds } = plan.hop
  const stub = startChild('./stub-service-child.ts')
  const { baseUrl } = await stub.call<{ baseUrl: string }>('start', { port: await freePort() })
  const hopChild = startChild('./bare-hop-child.ts')
  const hop: ServerProcess = { child: hopChild, ...await hopChild.call<{ url: string }>('start', { port: await freePort(), apiUrl: `${baseUrl}/api`, token: 'stub-access-token' }) }
  const started: ServerProcess[] = []
  const bffIn = async (store: HopRow['store'], logs: HopRow['logs']): Promise<ServerProcess> => {
    const port = await freePort()
    const env: Record<string, string> = {
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      MEDIA_BASE_URL: baseUrl,
      OAUTH_CLIENT_ID: 'bench',
      OAUTH_CLIENT_SECRET: 'bench-client-secret',
      OAUTH_SCOPES: 'basic user.info upload',
      SESSION_SECRETS: TEST_SESSION_SECRET,
      TOKEN_KEYS: benchTokenKeys(),
      LOG_LEVEL: logs,
      RATE_LIMIT_REGISTER_PER_MINUTE: '100000000',
      RATE_LIMIT_LOGIN_PER_MINUTE: '100000000',
      RATE_LIMIT_API_PER_MINUTE: '100000000',
      RELAY_MAX_IN_FLIGHT_PER_USER: '10000',
      ...(store === 'redis' && redisUrl !== undefined ? { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `bench-hop-${logs}:` } : {})
    }
    const bff = await startBffProcess(env, port, { logs: logs === 'info' })
    started.push(bff)
    return bff
  }
  try {
    const rows: HopRow[] = []
    const measure = async (call: HopCall, store: HopRow['store'], logs: HopRow['logs'], bff: ServerProcess): Promise<void> => {
      const cookie = await signedIn(bff)
      const load = (url: string): LoadOptions => call === 'register' ? bffRegister(url, cookie) : bffFolderContents(url, cookie)
      // Warm-up: JIT, connection pools and the session's copy on both sides.
      await runLoad({ ...load(bff.url), connections, duration: 1 })
      await runLoad({ ...load(hop.url), connections, duration: 1 })
      const bffs: LoadResult[] = []
      const hops: LoadResult[] = []
      const runBff = async (): Promise<void> => {
        bffs.push(await profiled(plan.profile && bffs.length === 0, bff.child, `hop-${call}-${store}${logs === 'info' ? '-info' : ''}`, async () =>
          await runLoadWatching({ ...load(bff.url), connections, duration: seconds }, [bff.child, stub])))
      }
      const runHop = async (): Promise<void> => { hops.push(await runLoadWatching({ ...load(hop.url), connections, duration: seconds }, [hopChild, stub])) }
      for (let round = 0; round < rounds; round++) {
        if (round % 2 === 0) { await runBff(); await runHop() } else { await runHop(); await runBff() }
      }
      rows.push({ call, store, logs, hop: medianResult(hops), bff: medianResult(bffs) })
    }
    const stores: Array<HopRow['store']> = redisUrl === undefined ? ['memory'] : ['memory', 'redis']
    for (const store of stores) {
      const bff = await bffIn(store, 'warn')
      for (const call of ['register', 'relay'] as const) await measure(call, store, 'warn', bff)
    }
    // Production's request logs, in memory: what they cost beside the same media-bff without them.
    const logging = await bffIn('memory', 'info')
    for (const call of ['register', 'relay'] as const) await measure(call, 'memory', 'info', logging)
    const stubCpu = rows.flatMap((row) => [row.hop.cpuUs[1], row.bff.cpuUs[1]]).filter((value): value is number => value !== undefined)
    return { connections, rows, stubCpuUs: stubCpu.reduce((sum, value) => sum + value, 0) / Math.max(1, stubCpu.length) }
  } finally {
    for (const bff of started) await bff.child.stop()
    await hopChild.stop()
    await stub.stop()
  }
}
