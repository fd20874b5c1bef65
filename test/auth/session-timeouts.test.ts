// Sessions end server-side after SESSION_IDLE_TIMEOUT without a request (GET /auth/session, a
// tab asking, does not count; the keep-alive does), and after SESSION_ABSOLUTE_TIMEOUT however
// active they are; an active session outlives its idle timeout.
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { startStack } from '../helpers/bff.js'
import { signIn } from '../helpers/sign-in.js'

t.test('idle timeout: an idle session ends, an active one lives on; asking GET /auth/session is not activity, POST /auth/session/keepalive is', async (t) => {
  const stack = await startStack({ env: { SESSION_IDLE_TIMEOUT: '2', SESSION_ABSOLUTE_TIMEOUT: '1h' } })
  t.teardown(stack.close)
  const [active, kept, asking, idle] = [stack.bff.browser(), stack.bff.browser(), stack.bff.browser(), stack.bff.browser()]
  for (const browser of [active, kept, asking, idle]) await signIn(browser)
  for (let i = 0; i < 6; i++) {
    await sleep(600)
    t.equal((await active.get('/api/folders/0/contents')).status, 200, `active after ${(i + 1) * 600} ms`)
    const keptAlive = await kept.post('/auth/session/keepalive')
    t.equal(keptAlive.json().authenticated, true, `kept alive after ${(i + 1) * 600} ms`)
    await asking.get('/auth/session')
  }
  t.equal((await kept.fetch('POST', '/auth/session/keepalive')).status, 403, 'the keep-alive is a write: X-CSRF')
  t.equal((await active.get('/auth/session')).json().authenticated, true, 'the active one is signed in')
  t.equal((await kept.get('/auth/session')).json().authenticated, true, 'and the one kept alive')
  t.equal((await asking.get('/auth/session')).json().authenticated, false, 'only asking whether signed in kept nothing alive')
  t.equal((await idle.get('/auth/session')).json().authenticated, false, 'idle for 3.6 s with a 2 s idle timeout: signed out')
  const answer = (await kept.post('/auth/session/keepalive')).json()
  t.ok(Date.parse(answer.idle_expires_at) > Date.now() + 1500, 'the keep-alive answer says the idle timeout starts again')
})

t.test('absolute timeout ends even an active session', async (t) => {
  const stack = await startStack({ env: { SESSION_IDLE_TIMEOUT: '2', SESSION_ABSOLUTE_TIMEOUT: '3' } })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  await signIn(browser)
  const signedInAt = Date.now()
  let last = true
  let lastSignedInAt = signedInAt
  for (let i = 0; i < 8 && last; i++) {
    await sleep(500)
    // Active: every half second a call that counts (the keep-alive), so the idle timeout never ends it.
    last = (await browser.post('/auth/session/keepalive')).json().authenticated
    if (last) lastSignedInAt = Date.now()
  }
  t.equal(last, false, 'signed out by the absolute timeout')
  t.ok(lastSignedInAt - signedInAt > 2000, `still signed in past the 2 s idle timeout (${lastSignedInAt - signedInAt} ms): it was the absolute one that ended it`)
  t.equal((await browser.post('/uploads/register', { folder_id: 0 })).json().error, 'login_required')
})
