// The store failing after the code exchange, inside /auth/callback: a browser navigation, so the
// human 503 page (never JSON, never a 500), and no session is left half-made.
import t from 'tap'
import { startStack } from '../helpers/bff.js'
import { consent, onServer, startLogin } from '../helpers/sign-in.js'
import { StoreUnavailableError } from '../../src/store/key-value-store.js'

t.test('the grant cannot be stored after the exchange: the human 503 page', async (t) => {
  const stack = await startStack()
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  const callbackUrl = await consent(browser, await startLogin(browser, '/auth/login?return_to=/back'))
  const kv = stack.bff.app.stores.people
  const set = kv.set.bind(kv)
  kv.set = async (key, value, ttlMs) => {
    if (key.startsWith('grant:')) throw new StoreUnavailableError('store down')
    await set(key, value, ttlMs)
  }
  const answer = await browser.get(onServer(browser, callbackUrl))
  t.equal(answer.status, 503)
  t.match(answer.headers['content-type'], /text\/html/)
  t.equal(answer.headers['cache-control'], 'no-store')
  kv.set = set
  t.equal((await browser.get('/auth/session')).json().authenticated, false, 'not signed in, and nothing half-made')
  t.notOk(stack.bff.logs.some((line) => line.includes('code exchange failed')), 'not reported as a failed exchange')
})
