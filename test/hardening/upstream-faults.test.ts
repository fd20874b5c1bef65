// Hardening: the media service and its token endpoint misbehave (slow, 5xx, dropped connections,
// nonsense, a forbidden upload host) while users register, finish, refresh and sign in. Each
// fault must end in its documented answer, keep the session (no cleared cookie, /auth/session
// still signed in), and the same cookie must work once the fault is gone.
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import type { FaultSpec } from '../../emulator/index.js'
import type { Browser, HttpResponse } from '../helpers/http-client.js'
import { contractProblems, describeExpectation, type Expectation } from './contract.js'
import { checkSessionKept, SLOW_MS, startFaultStack } from './fault-stack.js'
import { startLateAnswerProxy } from './late-answer-proxy.js'
import { signInFaultSuite } from './upstream-sign-in-faults.js'

const stack = await startFaultStack()
t.teardown(stack.close)
const survived: string[] = []

const badGateway = { status: 502, error: 'upstream_error' } as const
const timeout = { status: 504, error: 'upstream_timeout' } as const
const unavailable = { status: 503, error: 'unavailable' } as const

interface ApiFault {
  name: string
  fault: FaultSpec
  route: 'register' | 'finish'
  /** The access token has expired, so the call refreshes first (the fault may hit the refresh). */
  expired?: boolean
  expect: Expectation | 'success'
}

const apiFaults: ApiFault[] = [
  { name: 'upload/id slower than UPSTREAM_TIMEOUT_MS', route: 'register', fault: { endpoint: 'upload_id', delayMs: SLOW_MS }, expect: timeout },
  { name: 'upload/id answers 500', route: 'register', fault: { endpoint: 'upload_id', failStatus: 500 }, expect: badGateway },
  { name: 'upload/id answers 503', route: 'register', fault: { endpoint: 'upload_id', failStatus: 503 }, expect: badGateway },
  // The service asking to slow down is passed on, as the relay passes it on, with a Retry-After.
  { name: 'upload/id answers 429', route: 'register', fault: { endpoint: 'upload_id', failStatus: 429 }, expect: { status: 429, error: 'rate_limited' } },
  { name: 'upload/id drops the connection', route: 'register', fault: { endpoint: 'upload_id', drop: true }, expect: badGateway },
  { name: 'upload/id answers malformed JSON', route: 'register', fault: { endpoint: 'upload_id', malformed: true }, expect: badGateway },
  // The service refuses a token before its expiry: one refresh, one retry, the user sees nothing.
  { name: 'upload/id refuses the access token once (401)', route: 'register', fault: { endpoint: 'upload_id', failStatus: 401 }, expect: 'success' },
  { name: 'finish slower than UPSTREAM_TIMEOUT_MS', route: 'finish', fault: { endpoint: 'finish', delayMs: SLOW_MS }, expect: timeout },
  { name: 'finish answers 500', route: 'finish', fault: { endpoint: 'finish', failStatus: 500 }, expect: badGateway },
  { name: 'finish drops the connection', route: 'finish', fault: { endpoint: 'finish', drop: true }, expect: badGateway },
  { name: 'finish answers malformed JSON', route: 'finish', fault: { endpoint: 'finish', malformed: true }, expect: badGateway },
  { name: 'every endpoint slower than UPSTREAM_TIMEOUT_MS', route: 'register', fault: { endpoint: '*', delayMs: SLOW_MS }, expect: timeout },
  // Refresh failures keep the grant (docs/reference/http-api.md, "Errors"): 503 with Retry-After,
  // never a sign-out.
  { name: 'token endpoint answers 500 during refresh', route: 'register', expired: true, fault: { endpoint: 'token', failStatus: 500 }, expect: unavailable },
  { name: 'token endpoint answers 503 during refresh', route: 'finish', expired: true, fault: { endpoint: 'token', failStatus: 503 }, expect: unavailable },
  { name: 'token endpoint drops the connection during refresh', route: 'finish', expired: true, fault: { endpoint: 'token', drop: true }, expect: unavailable },
  { name: 'token endpoint answers malformed JSON during refresh', route: 'register', expired: true, fault: { endpoint: 'token', malformed: true }, expect: unavailable },
  { name: 'token endpoint slower than the timeout during refresh', route: 'register', expired: true, fault: { endpoint: 'token', delayMs: SLOW_MS }, expect: unavailable }
]

async function call (browser: Browser, route: ApiFault['route'], ulid: string): Promise<HttpResponse> {
  return route === 'register' ? await browser.post('/uploads/register', { folder_id: 0 }) : await browser.post(`/uploads/${ulid}/finish`)
}

for (const row of apiFaults) {
  const expected = row.expect === 'success' ? '200' : describeExpectation(row.expect)
  t.test(`${row.name} → ${expected}`, async (t) => {
    const { browser, ulid } = row.expired === true ? await stack.expiredSession() : await stack.freshSession()
    stack.emulator.injectFault(row.fault)
    let answer: HttpResponse
    try {
      answer = await call(browser, row.route, ulid)
    } finally {
      stack.emulator.clearFaults()
    }
    if (row.expect === 'success') t.equal(answer.status, 200, `succeeds (${answer.status} ${answer.text.slice(0, 120)})`)
    else t.same(contractProblems(answer, row.expect), [], 'the documented answer')
    await checkSessionKept(t, stack, browser, answer, async () => await call(browser, row.route, ulid))
    if (t.passing()) survived.push(row.name)
  })
}

t.test('a burst of 20 calls while the refresh fails: 503 or 200 only, one refresh after recovery', async (t) => {
  const { browser } = await stack.expiredSession()
  const before = stack.emulator.counters()
  stack.emulator.injectFault({ endpoint: 'token', failStatus: 500 })
  const burst = await Promise.all(Array.from({ length: 20 }, async () => await browser.post('/uploads/register', { folder_id: 0 })))
  stack.emulator.clearFaults()
  const statuses = burst.map((answer) => answer.status)
  t.ok(statuses.every((status) => status === 503 || status === 200), `only 503 and 200: ${statuses.join(' ')}`)
  t.ok(statuses.includes(503), 'the failed refresh was reported')
  for (const answer of burst.filter((each) => each.status === 503)) t.same(contractProblems(answer, unavailable), [])
  await checkSessionKept(t, stack, browser, burst[0]!, async () => await browser.post('/uploads/register', { folder_id: 0 }))
  const after = stack.emulator.counters()
  t.ok(after.tokenGrants.refresh_token - before.tokenGrants.refresh_token <= 1, 'at most one successful refresh for the whole burst and recovery')
  t.equal(after.refreshReuseDetections, 0, 'no refresh token reused')
  if (t.passing()) survived.push('refresh outage under a burst')
})

t.test('the registration points at an upload host outside UPLOAD_ALLOWED_HOSTS → 502', async (t) => {
  const strict = await startFaultStack({ UPLOAD_ALLOWED_HOSTS: 'upload.media.example' })
  t.teardown(strict.close)
  const browser = await strict.signedIn()
  const answer = await browser.post('/uploads/register', { folder_id: 0 })
  t.same(contractProblems(answer, badGateway), [], 'the documented answer')
  t.notMatch(answer.text, /sig=|\/upload\/[0-9A-Z]{26}/, 'the refused upload URL is not handed out')
  await checkSessionKept(t, strict, browser, answer, async () => await browser.get('/auth/session'))
  const { leaks, secrets } = await strict.leaks()
  t.same(leaks, [], `none of ${secrets} secrets in the logs`)
  if (t.passing()) survived.push('forbidden upload host')
})

// The authorization server did the refresh (and rotated the refresh token) but its answer came
// after media-bff gave up. The grant must survive: the rotated token must not be lost, or the next
// refresh presents a retired one and the server, seeing reuse, revokes the whole grant.
t.test('token endpoint refreshes but answers after the timeout → 503, then the same cookie works', async (t) => {
  const proxy = await startLateAnswerProxy()
  const late = await startFaultStack({ OAUTH_TOKEN_URL: `${proxy.url}/api/oauth2/token` })
  proxy.target = late.emulator.baseUrl
  t.teardown(async () => { await late.close(); await proxy.close() })
  const { browser } = await late.expiredSession()
  proxy.holdMs = SLOW_MS
  const answer = await browser.post('/uploads/register', { folder_id: 0 })
  proxy.holdMs = 0
  t.same(contractProblems(answer, unavailable), [], 'the documented answer')
  t.equal(proxy.held, 1, 'the emulator did refresh; only its answer was late')
  await sleep(SLOW_MS)
  await checkSessionKept(t, late, browser, answer, async () => await browser.post('/uploads/register', { folder_id: 0 }))
  t.equal(late.emulator.counters().refreshReuseDetections, 0, 'no retired refresh token was presented')
  const { leaks, secrets } = await late.leaks()
  t.same(leaks, [], `none of ${secrets} secrets in the logs`)
  if (t.passing()) survived.push('refresh answered after the timeout')
})

signInFaultSuite(t, stack, survived)

t.test('no secret in the logs', async (t) => {
  const { leaks, secrets, lines } = await stack.leaks()
  t.ok(lines > 0, 'logs were captured')
  t.same(leaks, [], `none of ${secrets} secrets in ${lines} log lines`)
  t.comment(`secrets searched for: ${JSON.stringify(stack.ledger.kinds())}`)
})

t.teardown(() => {
  t.comment(`faults survived: ${survived.length}`)
  for (const name of survived) t.comment(`  ${name}`)
})
