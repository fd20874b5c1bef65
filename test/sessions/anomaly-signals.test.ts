// Anomaly signals (SESSION_ANOMALY, SESSION_ANOMALY_SIGNALS; src/sessions/vouch.ts): a signed-in
// call from another device or network than its sign-in is recorded (once per session and place),
// and, where a deployment says so, asks for a fresh sign-in or ends the session.
import t, { type Test } from 'tap'
import { startStack } from '../helpers/bff.js'
import { signIn } from '../helpers/sign-in.js'
import type { Browser } from '../helpers/http-client.js'

const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'
const CHROME_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/145.0.0.0 Safari/537.36'

async function stackWith (t: Test, env: Record<string, string> = {}) {
  const stack = await startStack({ env: { TRUST_PROXY: '127.0.0.1', OAUTH_SCOPES: 'basic user.info upload', ...env } })
  t.teardown(stack.close)
  const from = (userAgent: string, address: string, cookies?: Browser): Browser => {
    const browser = stack.bff.browser({ 'user-agent': userAgent, 'x-forwarded-for': address })
    for (const [name, value] of cookies?.cookies ?? []) browser.cookies.set(name, value)
    return browser
  }
  const anomalies = (): Array<Record<string, unknown>> => stack.bff.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.audit === 'session_anomaly')
  return { ...stack, from, anomalies }
}

t.test('by default a change is recorded, once per session and place, and nothing else', async (t) => {
  const { from, anomalies } = await stackWith(t)
  const office = from(FIREFOX_LINUX, '203.0.113.77')
  await signIn(office)
  t.equal((await from(FIREFOX_LINUX, '203.0.113.9', office).post('/uploads/register', { folder_id: 0 })).status, 200, 'the same /24 is the same network')
  t.same(anomalies(), [])
  const moved = from(FIREFOX_LINUX, '198.51.100.4', office)
  t.equal((await moved.post('/uploads/register', { folder_id: 0 })).status, 200, 'another network: served')
  await moved.get('/auth/session')
  t.match(anomalies(), [{ reason: 'network', network: '198.51.100.0/24', signed_in_network: '203.0.113.0/24', device: 'Firefox on Linux', action: 'log', outcome: 'failure' }], 'recorded once')
  await from(CHROME_WINDOWS, '198.51.100.4', office).get('/auth/session')
  t.match(anomalies().map((line) => line.reason), ['network', 'device,network'], 'another device too')
  t.type(anomalies()[1]?.session, 'string', 'naming the session by its handle')
})

t.test('SESSION_ANOMALY=reauth: signed-in calls ask for a fresh sign-in from the new place', async (t) => {
  const { from, anomalies } = await stackWith(t, { SESSION_ANOMALY: 'reauth', SESSION_ANOMALY_SIGNALS: 'device' })
  const office = from(FIREFOX_LINUX, '203.0.113.77')
  await signIn(office)
  t.equal((await from(FIREFOX_LINUX, '198.51.100.4', office).post('/uploads/register', { folder_id: 0 })).status, 200, 'a network change is no signal here')
  const elsewhere = from(CHROME_WINDOWS, '203.0.113.77', office)
  const refused = await elsewhere.post('/uploads/register', { folder_id: 0 }, { referer: `${elsewhere.baseUrl}/library` })
  t.equal(refused.status, 403)
  t.match(refused.json(), { error: 'reauth_required', reason: 'session_anomaly' })
  const again = new URL(refused.json().login_url as string, elsewhere.baseUrl)
  t.equal(again.searchParams.get('prompt'), 'login')
  t.equal(again.searchParams.get('return_to'), '/library')
  t.equal((await elsewhere.get('/auth/session')).json().authenticated, true, 'the session itself is not ended')
  t.equal((await office.post('/uploads/register', { folder_id: 0 })).status, 200, 'and its own device goes on')
  await signIn(elsewhere)
  t.equal((await elsewhere.post('/uploads/register', { folder_id: 0 })).status, 200, 'signed in afresh there, it is served')
  t.match(anomalies(), [{ reason: 'device', action: 'reauth' }])
})

t.test('SESSION_ANOMALY=end: the session ends', async (t) => {
  const stack = await stackWith(t, { SESSION_ANOMALY: 'end' })
  const office = stack.from(FIREFOX_LINUX, '203.0.113.77')
  await signIn(office)
  const refused = await stack.from(FIREFOX_LINUX, '198.51.100.4', office).post('/uploads/register', { folder_id: 0 })
  t.equal(refused.status, 401)
  t.equal(refused.json().error, 'login_required')
  t.equal((await office.get('/auth/session')).json().authenticated, false, 'for the sign-in\'s own device too')
  const endings = stack.bff.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.audit === 'session_ended')
  t.match(endings, [{ reason: 'anomaly', live: 1 }])
})

t.test('SESSION_ANOMALY_SIGNALS names device and network only', async (t) => {
  const { problemsOf, validEnv } = await import('../helpers/config-env.js')
  t.match(problemsOf({ ...validEnv, SESSION_ANOMALY_SIGNALS: 'device,country' }), [/^SESSION_ANOMALY_SIGNALS: country: only device and network are signals/])
  t.match(problemsOf({ ...validEnv, SESSION_ANOMALY: 'block' }), [/^SESSION_ANOMALY:/])
  t.same(problemsOf({ ...validEnv, SESSION_ANOMALY_SIGNALS: '' }), [])
})
