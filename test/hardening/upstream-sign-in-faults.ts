// Faults during sign-in: user/info failing (the sign-in goes on without the profile, see
// src/sign-in/sign-in.ts) and the token endpoint failing at the code exchange (the callback goes
// back to the site with auth_error; a session that was already signed in is kept).
import type { Test } from 'tap'
import type { FaultSpec } from '../../emulator/index.js'
import { consent, onServer, signIn, startLogin } from '../helpers/sign-in.js'
import { clearsLoginCookie, contractProblems } from './contract.js'
import { checkSessionKept, SLOW_MS, type FaultStack } from './fault-stack.js'

const failures: Array<[string, Omit<FaultSpec, 'endpoint'>]> = [
  ['answers 500', { failStatus: 500 }],
  ['answers 503', { failStatus: 503 }],
  ['drops the connection', { drop: true }],
  ['answers malformed JSON', { malformed: true }],
  ['is slower than the timeout', { delayMs: SLOW_MS }]
]

export function signInFaultSuite (t: Test, stack: FaultStack, survived: string[]): void {
  for (const [name, fault] of failures) {
    t.test(`user/info ${name} during sign-in → signed in without the profile`, async (t) => {
      const browser = stack.browser()
      stack.emulator.injectFault({ endpoint: 'user_info', ...fault })
      let result
      try {
        result = await signIn(browser, { loginPath: '/auth/login?return_to=/back' })
      } finally {
        stack.emulator.clearFaults()
      }
      stack.ledger.addCallback(result.callbackUrl)
      t.same(contractProblems(result.callback, { redirect: '/back' }), [], 'the callback lands on the return path')
      const session = (await browser.get('/auth/session')).json()
      t.equal(session.authenticated, true, 'signed in')
      t.same([session.user?.name, session.user?.email], [null, null], 'no name or e-mail: user/info could not be read')
      t.same(session.scopes, ['basic', 'user.info', 'upload'], 'the granted scopes come from the token response')
      await checkSessionKept(t, stack, browser, result.callback, async () => await browser.post('/uploads/register', { folder_id: 0 }))
      if (t.passing()) survived.push(`user/info ${name} during sign-in`)
    })
  }

  for (const [name, fault] of failures) {
    t.test(`token endpoint ${name} at the code exchange of a re-authorization → auth_error=unavailable, session kept`, async (t) => {
      const browser = await stack.signedIn()
      const cookie = browser.cookies.get(stack.cookieName)
      const authorizeUrl = await startLogin(browser, '/auth/login?scope=upload&return_to=/back')
      const callbackUrl = await consent(browser, authorizeUrl)
      stack.ledger.addCallback(callbackUrl)
      stack.emulator.injectFault({ endpoint: 'token', ...fault })
      let answer
      try {
        answer = await browser.get(onServer(browser, callbackUrl))
      } finally {
        stack.emulator.clearFaults()
      }
      t.same(contractProblems(answer, { redirect: '/back?auth_error=unavailable' }), [], 'back on the site with auth_error')
      t.equal(browser.cookies.get(stack.cookieName), cookie, 'the same session cookie')
      t.same((await browser.get('/auth/session')).json().scopes, ['basic', 'user.info', 'upload'], 'the old grant, as it was')
      await checkSessionKept(t, stack, browser, answer, async () => await browser.post('/uploads/register', { folder_id: 0 }))
      if (t.passing()) survived.push(`token endpoint ${name} at the code exchange`)
    })
  }

  t.test('token endpoint answers 500 at the code exchange of a first sign-in → auth_error, then a sign-in works', async (t) => {
    const browser = stack.browser()
    const authorizeUrl = await startLogin(browser, '/auth/login?return_to=/back')
    const callbackUrl = await consent(browser, authorizeUrl)
    stack.ledger.addCallback(callbackUrl)
    stack.emulator.injectFault({ endpoint: 'token', failStatus: 500 })
    let answer
    try {
      answer = await browser.get(onServer(browser, callbackUrl))
    } finally {
      stack.emulator.clearFaults()
    }
    t.same(contractProblems(answer, { redirect: '/back?auth_error=unavailable' }), [], 'back on the site with auth_error, no 500')
    t.ok(clearsLoginCookie(answer, stack.cookieName), 'this sign-in is over: its login cookie is cleared')
    t.equal((await browser.get('/auth/session')).json().authenticated, false, 'nobody signed in')
    const again = await signIn(browser)
    stack.ledger.addCallback(again.callbackUrl)
    t.equal(again.callback.status, 302, 'signing in again works')
    t.equal((await browser.get('/auth/session')).json().authenticated, true)
    if (t.passing()) survived.push('token endpoint fails at a first sign-in\'s code exchange')
  })
}
