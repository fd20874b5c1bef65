// Sessions end server-side after SESSION_IDLE_TIMEOUT without a request (GET /auth/session, a
// tab asking, does not count; the keep-alive does), and after SESSION_ABSOLUTE_TIMEOUT however
// active they are; an active session outlives its idle timeout. On a clock the test moves on.
import t from 'tap'
import { build } from '../helpers/build.js'

/** A clock that moves only when told. */
function testClock () {
  let time = Date.now()
  return { now: () => time, pass: (ms: number) => { time += ms } }
}

t.test('idle timeout: an idle session ends, an active one lives on; asking GET /auth/session is not activity, POST /auth/session/keepalive is', async (t) => {
  const clock = testClock()
  const stack = await build(t, { env: { SESSION_IDLE_TIMEOUT: '2m', SESSION_ABSOLUTE_TIMEOUT: '1h' }, clock: clock.now })
  const [active, kept, asking, idle] = [await stack.signedIn(), await stack.signedIn(), await stack.signedIn(), await stack.signedIn()]
  for (let i = 0; i < 6; i++) {
    clock.pass(36_000)
    t.equal((await active.get('/api/folders/0/contents')).status, 200, `active after ${(i + 1) * 36} s`)
    const keptAlive = await kept.post('/auth/session/keepalive')
    t.equal(keptAlive.json().authenticated, true, `kept alive after ${(i + 1) * 36} s`)
    await asking.get('/auth/session')
  }
  t.equal((await kept.fetch('POST', '/auth/session/keepalive')).status, 403, 'the keep-alive is a write: X-CSRF')
  t.equal((await active.get('/auth/session')).json().authenticated, true, 'the active one is signed in')
  t.equal((await kept.get('/auth/session')).json().authenticated, true, 'and the one kept alive')
  t.equal((await asking.get('/auth/session')).json().authenticated, false, 'only asking whether signed in kept nothing alive')
  t.equal((await idle.get('/auth/session')).json().authenticated, false, 'idle for 3.6 min with a 2 min idle timeout: signed out')
  const answer = (await kept.post('/auth/session/keepalive')).json()
  t.equal(Date.parse(answer.idle_expires_at), clock.now() + 120_000, 'the keep-alive answer says the idle timeout starts again')
})

t.test('absolute timeout ends even an active session', async (t) => {
  const clock = testClock()
  const stack = await build(t, { env: { SESSION_IDLE_TIMEOUT: '2m', SESSION_ABSOLUTE_TIMEOUT: '3m' }, clock: clock.now })
  const browser = await stack.signedIn()
  const signedInAt = clock.now()
  let last = true
  let lastSignedInAt = signedInAt
  for (let i = 0; i < 8 && last; i++) {
    clock.pass(30_000)
    // Active: every half minute a call that counts (the keep-alive), so the idle timeout never ends it.
    last = (await browser.post('/auth/session/keepalive')).json().authenticated
    if (last) lastSignedInAt = clock.now()
  }
  t.equal(last, false, 'signed out by the absolute timeout')
  const lasted = lastSignedInAt - signedInAt
  t.ok(lasted > 120_000 && lasted <= 180_000, `still signed in past the 2 min idle timeout (${lasted / 1000} s), never past the 3 min absolute one: that one ended it`)
  t.equal((await browser.post('/uploads/register', { folder_id: 0 })).json().error, 'login_required')
})
