// A request the gate refuses for its caller's proof (no X-CSRF header, a foreign Origin, an
// operator's route without the operator's token) changes nothing of anyone's: it is not counted
// against the person's limits, and it does not keep the session from its idle timeout, whatever
// session cookie it carries. Run on each store (refused-requests-memory.test.ts, -redis.test.ts).
import type { Test } from 'tap'
import { build } from '../helpers/build.js'

const OPERATOR_TOKEN = 'operator-token-0123456789-abcdefghijklmnop'

/** A clock that moves only when told. */
function testClock () {
  let time = Date.now()
  return { now: () => time, pass: (ms: number) => { time += ms } }
}

export function refusedRequestsSuite (t: Test, storeEnv: () => Record<string, string>): void {
  t.test('refused for want of its proof, a call counts nothing against the person\'s limit', async (t) => {
    const stack = await build(t, { env: { ...storeEnv(), RATE_LIMIT_API_PER_MINUTE: '5' } })
    const browser = await stack.signedIn()
    const listing = '/api/folders/0/contents'
    for (let i = 0; i < 8; i++) {
      const refused = await browser.fetch('GET', listing)
      t.equal(refused.status, 403, `without X-CSRF: refused (${i + 1})`)
      t.equal(refused.json().error, 'csrf_failed')
    }
    for (let i = 0; i < 4; i++) {
      const foreign = await browser.get(listing, { origin: 'https://elsewhere.example' })
      t.equal(foreign.json().error, 'csrf_failed', `from a foreign origin: refused (${i + 1})`)
    }
    const answers = []
    for (let i = 0; i < 6; i++) answers.push((await browser.get(listing)).status)
    t.same(answers, [200, 200, 200, 200, 200, 429], 'the person\'s own five calls go through, the sixth is over the limit: the refused ones were never counted')
  })

  t.test('refused for want of its proof, a call keeps no session from its idle timeout', async (t) => {
    const clock = testClock()
    const stack = await build(t, { env: { ...storeEnv(), SESSION_IDLE_TIMEOUT: '2m', SESSION_ABSOLUTE_TIMEOUT: '1h', OPERATOR_TOKEN }, clock: clock.now })
    const [refusedOnly, kept] = [await stack.signedIn(), await stack.signedIn()]
    clock.pass(100_000)
    t.equal((await refusedOnly.fetch('POST', '/auth/session/keepalive')).status, 403, 'a keep-alive without X-CSRF: refused')
    t.equal((await refusedOnly.post('/auth/session/keepalive', undefined, { origin: 'https://elsewhere.example' })).status, 403, 'one from a foreign origin: refused')
    t.equal((await refusedOnly.fetch('GET', '/api/folders/0/contents')).status, 403, 'a relayed call without X-CSRF: refused')
    const lever = await refusedOnly.fetch('DELETE', '/operator/users/default/someone/sessions', { headers: { 'x-csrf': '1', authorization: 'Bearer not-the-operator-token-0123456789abc' } })
    t.equal(lever.status, 404, 'the operator\'s lever without its token: as if it did not exist')
    t.equal((await kept.post('/auth/session/keepalive')).json().authenticated, true, 'the other session is kept alive')
    clock.pass(40_000)
    t.equal((await refusedOnly.get('/auth/session')).json().authenticated, false, 'idle for 2 min 20 s with a 2 min idle timeout: the refused calls kept it from nothing')
    t.equal((await kept.get('/auth/session')).json().authenticated, true, 'the one kept alive by its own call is signed in')
  })
}
