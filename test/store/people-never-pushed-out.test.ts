// In memory, bookkeeping can never push a person out (src/store/store-families.ts): a flood of
// validly signed webhooks and of registrations leaves an idle person signed in, and the
// operators' lever still finds everyone; when the people's stores are at their bound, a new
// sign-in is refused (503, counted, logged once) and nobody already signed in is dropped.
// MEMORY_MAX_SESSIONS is small here so the bounds are reached in a moment; the stores are sized
// from it exactly as with the default.
import t from 'tap'
import { request } from 'undici'
import { startStack, UNLIMITED_RATES } from '../helpers/bff.js'
import { signIn } from '../helpers/sign-in.js'
import { signedWebhook } from '../helpers/webhooks.js'
import { memoryBounds } from '../../src/store/store-families.js'

const WEBHOOK_KEY = 'webhook-key-0123456789-abcdefghijkl'
const OPERATOR_TOKEN = 'operator-token-0123456789-abcdefghijklmnop'
const MAX_SESSIONS = 20

t.test('a flood of webhooks and registrations pushes nobody out; the operators\' lever finds everyone', async (t) => {
  const stack = await startStack({
    env: { ...UNLIMITED_RATES, MEMORY_MAX_SESSIONS: String(MAX_SESSIONS), WEBHOOK_KEYS: WEBHOOK_KEY, OPERATOR_TOKEN, OAUTH_SCOPES: 'basic user.info upload', RATE_LIMIT_WEBHOOKS_PER_MINUTE: '100000' }
  })
  t.teardown(stack.close)
  const idle = stack.bff.browser()
  t.equal((await signIn(idle, { user: 'bob' })).callback.status, 302)
  const active = stack.bff.browser()
  t.equal((await signIn(active, { user: 'alice' })).callback.status, 302)
  const aliceId = String((await active.get('/auth/session')).json().user.id)

  const bounds = memoryBounds(MAX_SESSIONS)
  const floods = 10 * bounds.webhooks
  const answers: number[] = []
  for (let i = 0; i < floods; i++) {
    const answer = await request(`${stack.bff.url}/webhooks/media`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: signedWebhook(WEBHOOK_KEY) })
    await answer.body.dump()
    answers.push(answer.statusCode)
    // alice keeps working meanwhile: the most recently used entries are hers.
    if (i % 50 === 0) t.equal((await active.get('/auth/session')).json().authenticated, true)
  }
  t.ok(answers.every((status) => status === 202 || status === 503), 'each webhook taken, or refused for the service to retry')
  for (let i = 0; i < 3 * bounds.uploads; i++) t.equal((await active.post('/uploads/register', { folder_id: 0 })).status, 200)
  const sizes = stack.bff.app.stores.sizes()
  t.comment(`after ${floods} webhooks and ${3 * bounds.uploads} registrations: ${JSON.stringify(sizes)}`)
  t.equal(sizes.webhooks, bounds.webhooks, 'webhook ids and tokens held at their own bound')
  t.equal(sizes.uploads, bounds.uploads, 'registrations held at theirs')
  const metrics = await (await request(`${stack.bff.url}/metrics`)).body.text()
  t.match(metrics, new RegExp(`^media_bff_store_entries\\{store="webhooks"\\} ${bounds.webhooks}$`, 'm'), 'each store\'s size is a metric')
  t.match(metrics, /^media_bff_store_entries\{store="people"\} \d+$/m)

  t.equal((await idle.get('/auth/session')).json().authenticated, true, 'the idle person is still signed in')
  const lever = await active.fetch('DELETE', `/operator/users/default/${encodeURIComponent(aliceId)}/sessions`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'x-csrf': '1' } })
  t.same(lever.json(), { ended: 1 }, 'the lever finds the active person\'s session')
  t.equal((await active.get('/auth/session')).json().authenticated, false, 'and ends it')
})

t.test('at their bound, new sign-ins are refused (503, counted, logged once); nobody signed in is dropped', async (t) => {
  const stack = await startStack({ env: { ...UNLIMITED_RATES, MEMORY_MAX_SESSIONS: '10' } })
  t.teardown(stack.close)
  const signedIn = []
  let refused
  for (let i = 0; i < 40 && refused === undefined; i++) {
    const browser = stack.bff.browser()
    const login = await browser.get('/auth/login')
    if (login.status !== 302) {
      refused = login
      break
    }
    t.equal((await signIn(browser)).callback.status, 302)
    signedIn.push(browser)
  }
  if (refused === undefined) throw new Error('no sign-in was refused')
  t.comment(`${signedIn.length} sign-ins taken`)
  t.ok(signedIn.length >= 10, 'at least MEMORY_MAX_SESSIONS sign-ins fit')
  t.equal(refused.status, 503)
  t.equal(refused.json().error, 'unavailable')
  t.match(refused.headers['retry-after'], /^\d+$/)
  for (const browser of signedIn) t.equal((await browser.get('/auth/session')).json().authenticated, true)
  t.equal((await stack.bff.browser().get('/auth/login')).status, 503, 'refused again')
  const warnings = stack.bff.logs.filter((line) => line.includes('new sign-ins are refused'))
  t.equal(warnings.length, 1, 'logged once, not per refusal')
  const metrics = await (await request(`${stack.bff.url}/metrics`)).body.text()
  t.match(metrics, /media_bff_logins_total\{outcome="refused_full"\} 2/, 'each refusal counted')

  const first = signedIn[0]
  if (first === undefined) throw new Error('nobody signed in')
  t.equal((await first.post('/auth/logout')).status, 200)
  t.equal((await stack.bff.browser().get('/auth/login')).status, 302, 'room again once someone signs out')
  t.ok(stack.bff.logs.some((line) => line.includes('new sign-ins are taken again')))
})
