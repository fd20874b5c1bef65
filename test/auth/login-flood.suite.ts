// LOGIN_MAX_PER_BROWSER, run once per store backend (login-flood.test.ts, login-flood-redis.test.ts).
import type { Test } from 'tap'
import { startStack } from '../helpers/bff.js'
import { consent, onServer, startLogin } from '../helpers/sign-in.js'

export function perBrowserCapSuite (t: Test, storeEnv: () => Record<string, string | undefined>): void {
  t.test('one browser keeps at most LOGIN_MAX_PER_BROWSER sign-ins open: the oldest is dropped', async (t) => {
    const stack = await startStack({ env: { ...storeEnv(), LOGIN_MAX_PER_BROWSER: '3' } })
    t.teardown(stack.close)
    const browser = stack.bff.browser()
    const callbacks: string[] = []
    for (const tab of [1, 2, 3, 4, 5]) {
      callbacks.push(await consent(browser, await startLogin(browser, `/auth/login?return_to=/tab${tab}`)))
    }
    for (const tab of [1, 2]) {
      const dropped = await browser.get(onServer(browser, callbacks[tab - 1] ?? ''))
      t.equal(dropped.status, 400, `tab ${tab}, among the oldest, was dropped`)
      t.match(dropped.text, /newer sign-ins/)
    }
    for (const tab of [5, 3]) {
      const kept = await browser.get(onServer(browser, callbacks[tab - 1] ?? ''))
      t.equal(kept.status, 302, `tab ${tab} completes`)
      t.equal(kept.location, `/tab${tab}`)
    }

    const other = stack.bff.browser()
    const otherCallback = await consent(other, await startLogin(other, '/auth/login?return_to=/other'))
    for (let i = 0; i < 3; i++) await startLogin(browser)
    t.equal((await other.get(onServer(other, otherCallback))).location, '/other', "another browser's sign-in is never dropped")
  })
}
