// A sign-in flood from over ten thousand addresses behind a trusted proxy, run once per store
// backend (login-flood.test.ts in memory, login-flood-redis.test.ts on a Redis at maxmemory with
// noeviction). During the flood a new browser signs in and a signed-in user whose access token
// has expired is served (refresh lock, grant write, session touch); after it, another browser
// signs in. Nothing the flood sent may be left in the store.
//
// Bounded: FLOOD_ADDRESSES addresses, each starting one sign-in; one in CALLBACK_EVERY of them
// also brings its sealed transaction back with a made-up code, and as many send a forged state.
import type { Test } from 'tap'
import { Pool } from 'undici'
import { startStack } from '../helpers/bff.js'
import { parseSetCookie } from '../helpers/http-client.js'
import { signIn } from '../helpers/sign-in.js'

// More addresses than the per-address limiter keeps counters for (plugins/gate.ts, 10,000),
// so the flood also makes it forget.
export const FLOOD_ADDRESSES = 12_000
const CALLBACK_EVERY = 20
const IPV6_EVERY = 3
const CONCURRENCY = 32
// Short, so the signed-in users' calls touch their sessions during the flood (every quarter of
// it), yet well above the longest wait a call of theirs sees on a loaded 2-core machine: at 4 s
// one CI run (six test files beside the flood) had sessions idle out between two calls.
const IDLE_TIMEOUT_S = 10
/** How often the signed-in users call while the flood runs: well inside the touch interval. */
const SIGNED_IN_CALL_EVERY_MS = 300

export interface FloodBackend {
  env: Record<string, string>
  /** Keys in the store now (media-bff's own, whatever the backend). */
  keyCount: () => Promise<number>
  /** Caps the store so that whatever a flood would write could not fit; called once everyone is signed in. */
  capStore?: () => Promise<void>
  describeStore: () => Promise<string>
}

/** Address number i (below 65,536): each in a /24 (IPv4) or a /48 (IPv6) of its own. */
function address (i: number): string {
  if (i % IPV6_EVERY === 0) return `2001:db8:${i.toString(16)}::${(i % 250) + 1}`
  return `10.${i >> 8}.${i & 255}.${(i % 250) + 1}`
}

interface FloodTally { requests: number, statuses: Map<string, number> }

export function signInFloodSuite (t: Test, makeBackend: (stack: Awaited<ReturnType<typeof startStack>>) => Promise<FloodBackend>, env: Record<string, string> = {}): void {
  t.test(`a sign-in flood from ${FLOOD_ADDRESSES} addresses neither stops a new sign-in nor a signed-in user`, async (t) => {
    const stack = await startStack({
      // Short-lived access tokens, and a short idle timeout, so the signed-in users' calls during
      // the flood need refreshes (lock and grant written) and session touches (every 2.5 s).
      emulator: { accessTokenTtl: 2 },
      // Request logging off (warn): it is not what is measured, and it would slow the flood.
      env: { TRUST_PROXY: '127.0.0.1', SESSION_IDLE_TIMEOUT: `${IDLE_TIMEOUT_S}s`, LOG_LEVEL: 'warn', ...env }
    })
    t.teardown(stack.close)
    const backend = await makeBackend(stack)
    const alice = stack.bff.browser({ 'x-forwarded-for': '192.0.2.10' })
    t.equal((await signIn(alice)).callback.status, 302, 'alice signed in before the flood')
    await backend.capStore?.()
    const keysBefore = await backend.keyCount()
    const refreshesBefore = stack.emulator.counters().tokenGrants.refresh_token

    const pool = new Pool(stack.bff.url, { connections: 8 })
    t.teardown(async () => { await pool.close() })
    const tally: FloodTally = { requests: 0, statuses: new Map() }
    const count = (kind: string, status: number): void => {
      tally.requests++
      const key = `${kind} ${status}`
      tally.statuses.set(key, (tally.statuses.get(key) ?? 0) + 1)
    }
    const send = async (path: string, headers: Record<string, string>): Promise<{ status: number, headers: Record<string, string | string[] | undefined>, text: string }> => {
      const answer = await pool.request({ method: 'GET', path, headers })
      // Only a refusal's page is read (which one it is); every other body is let go unread.
      const text = answer.statusCode === 503 ? await answer.body.text() : ''
      if (answer.statusCode !== 503) await answer.body.dump()
      return { status: answer.statusCode, headers: answer.headers, text }
    }
    const floodFrom = async (i: number): Promise<void> => {
      const from = { 'x-forwarded-for': address(i) }
      const login = await send('/auth/login', from)
      count('login', login.status)
      if (i % CALLBACK_EVERY !== 1 || login.status !== 302) return
      // The sealed transaction it was given, brought back with a code nobody issued; and a
      // state media-bff never issued.
      const cookies = [login.headers['set-cookie'] ?? []].flat().map(parseSetCookie)
      const state = new URL(String(login.headers.location)).searchParams.get('state') ?? ''
      const cookie = cookies.map((c) => `${c.name}=${c.value}`).join('; ')
      const madeUp = await send(`/auth/callback?code=made-up-${i}&state=${encodeURIComponent(state)}`, { ...from, cookie })
      // On a machine running other suites beside this flood, Redis itself (another process on the
      // same two cores) now and then misses the store's 1 s deadline: the callback is then the
      // human 503 page of a store that did not answer, as it should be. Counted apart, and held
      // to being that page and rare.
      count(madeUp.status === 503 && madeUp.text.includes('Reference: unavailable') ? 'made-up code, store late' : 'made-up code', madeUp.status)
      count('forged state', (await send(`/auth/callback?code=x&state=forged-${i}`, from)).status)
    }

    let next = 0
    /** How many addresses have started flooding (the workers move it on). */
    const reached = (): number => next
    const started = performance.now()
    const workers = Array.from({ length: CONCURRENCY }, async () => {
      while (next < FLOOD_ADDRESSES) await floodFrom(next++)
    })
    // Signed-in users at work while the flood runs, for longer than the idle timeout: every call
    // must be served, and their sessions survive only if the touches are written.
    const signedIn = [alice]
    const refused: string[] = []
    let signedInCalls = 0
    const atWork = (async () => {
      const until = performance.now() + 1.5 * IDLE_TIMEOUT_S * 1000
      while (reached() < FLOOD_ADDRESSES || performance.now() < until) {
        for (const browser of signedIn) {
          const answer = await browser.get('/api/folders/0/contents')
          signedInCalls++
          if (answer.status !== 200) refused.push(`${answer.status} ${answer.text.slice(0, 120)}`)
        }
        await new Promise((resolve) => setTimeout(resolve, SIGNED_IN_CALL_EVERY_MS))
      }
    })()
    // A third of the way in, a new browser signs in.
    while (reached() < FLOOD_ADDRESSES / 3) await new Promise((resolve) => setTimeout(resolve, 20))
    const during = performance.now()
    const newcomer = stack.bff.browser({ 'x-forwarded-for': '198.51.100.20' })
    const newcomerSignIn = await signIn(newcomer, { loginPath: '/auth/login?return_to=/during', user: 'bob' })
    const newcomerMs = performance.now() - during
    const newcomerAt = next
    t.equal(newcomerSignIn.callback.status, 302, 'a new browser signed in during the flood')
    t.equal(newcomerSignIn.callback.location, '/during')
    t.equal((await newcomer.get('/auth/session')).json().authenticated, true)
    signedIn.push(newcomer)
    await Promise.all(workers)
    const seconds = (performance.now() - started) / 1000
    await atWork

    t.same(refused, [], `every one of the signed-in users' ${signedInCalls} calls during the flood was served`)
    t.ok(stack.emulator.counters().tokenGrants.refresh_token > refreshesBefore, 'their tokens were refreshed meanwhile: locks and grants written')
    for (const browser of signedIn) t.equal((await browser.get('/auth/session')).json().authenticated, true, 'and their sessions, touched meanwhile, live on')

    t.equal(tally.statuses.get('login 302'), FLOOD_ADDRESSES, 'every flooding address was sent to the authorization server')
    const storeLate = tally.statuses.get('made-up code, store late 503') ?? 0
    t.equal(tally.statuses.get('made-up code 302'), FLOOD_ADDRESSES / CALLBACK_EVERY - storeLate, 'made-up codes go back to the site with auth_error...')
    t.ok(storeLate <= FLOOD_ADDRESSES / CALLBACK_EVERY / 100, `...but for ${storeLate} the store answered too late for, each on the store's 503 page`)
    t.equal(tally.statuses.get('forged state 400'), FLOOD_ADDRESSES / CALLBACK_EVERY, 'forged states end on the human page')

    const after = stack.bff.browser({ 'x-forwarded-for': '198.51.100.21' })
    t.equal((await signIn(after, { loginPath: '/auth/login?return_to=/after' })).callback.location, '/after', 'a new browser signs in right after the flood')
    t.equal((await alice.get('/api/folders/0/contents')).status, 200, 'and alice carries on')

    // What is left in the store: the real sign-ins' sessions, grants and used-state markers,
    // and their per-user rate-limit counters; nothing of the flood's.
    const keysAfter = await backend.keyCount()
    t.ok(keysAfter - keysBefore <= 12, `the store holds ${keysAfter - keysBefore} more keys, all the real sign-ins' (the flood sent ${tally.requests} requests)`)
    t.notOk(stack.bff.logs.some((line) => line.includes('unexpected error')), 'no unexpected error was logged')
    const ipv6 = Math.ceil(FLOOD_ADDRESSES / IPV6_EVERY)
    t.comment(`flood: ${tally.requests} requests from ${FLOOD_ADDRESSES} addresses (${FLOOD_ADDRESSES - ipv6} IPv4, each in its own /24; ${ipv6} IPv6, each in its own /48) in ${seconds.toFixed(1)} s (${Math.round(tally.requests / seconds)} req/s)`)
    t.comment(`statuses: ${[...tally.statuses].map(([key, value]) => `${key}: ${value}`).join(', ')}`)
    t.comment(`during the flood (after ${newcomerAt} addresses): a new sign-in took ${Math.round(newcomerMs)} ms and ended ${newcomerSignIn.callback.status} ${newcomerSignIn.callback.location ?? ''}; the signed-in users made ${signedInCalls} relayed calls, ${signedInCalls - refused.length} answered 200, with ${stack.emulator.counters().tokenGrants.refresh_token - refreshesBefore} refreshes`)
    t.comment(`store: ${keysBefore} keys before, ${keysAfter} after; ${await backend.describeStore()}`)
  })
}
