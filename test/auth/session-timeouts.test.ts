// Sessions end server-side after SESSION_IDLE_TIMEOUT without a request, and after
// SESSION_ABSOLUTE_TIMEOUT however active they are; an active session outlives its idle timeout.
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { startStack } from '../helpers/bff.js'
import { signIn } from '../helpers/sign-in.js'

t.test('idle timeout: an idle session ends, an active one lives on', async (t) => {
  const stack = await startStack({ env: { SESSION_IDLE_TIMEOUT: '2', SESSION_ABSOLUTE_TIMEOUT: '1h' } })
  t.teardown(stack.close)
  const active = stack.bff.browser()
  const idle = stack.bff.browser()
  await signIn(active)
  await signIn(idle)
  for (let i = 0; i < 6; i++) {
    await sleep(600)
    t.equal((await active.get('/auth/session')).json().authenticated, true, `active after ${(i + 1) * 600} ms`)
  }
  const ended = await idle.get('/auth/session')
  t.equal(ended.json().authenticated, false, 'idle for 3.6 s with a 2 s idle timeout: signed out')
})

t.test('absolute timeout ends even an active session', async (t) => {
  const stack = await startStack({ env: { SESSION_IDLE_TIMEOUT: '2', SESSION_ABSOLUTE_TIMEOUT: '3' } })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  await signIn(browser)
  let last = true
  for (let i = 0; i < 8 && last; i++) {
    await sleep(500)
    last = (await browser.get('/auth/session')).json().authenticated
  }
  t.equal(last, false, 'signed out by the absolute timeout')
  t.equal((await browser.post('/uploads/register', { folder_id: 0 })).json().error, 'login_required')
})
