// The callback as a browser sends it with a SameSite=Strict session cookie: without it (the media
// service starts that navigation). The sign-in still replaces the session it began in, and one
// another tab's sign-in replaced meanwhile (two tabs of one browser sent to consent at once): the
// browser ends with one session, none left behind with its grant.
import t from 'tap'
import { startStack } from '../helpers/bff.js'
import { consent, onServer, startLogin } from '../helpers/sign-in.js'
import type { Browser } from '../helpers/http-client.js'

const SESSION = 'media-bff'

/** The callback without the Strict session cookie, as the browser sends it; its answer's cookies kept. */
async function callbackFromAnotherSite (browser: Browser, callbackUrl: string): Promise<void> {
  const session = browser.cookies.get(SESSION)
  browser.cookies.delete(SESSION)
  const answer = await browser.get(onServer(browser, callbackUrl))
  if (answer.status !== 302) throw new Error(`callback answered ${answer.status}: ${answer.text}`)
  if (!browser.cookies.has(SESSION) && session !== undefined) browser.cookies.set(SESSION, session)
}

t.test('two tabs sent to consent from one session: each callback replaces what the browser holds', async (t) => {
  const stack = await startStack({ env: { OAUTH_SCOPES: 'basic user.info' } })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  await callbackFromAnotherSite(browser, await consent(browser, await startLogin(browser)))
  const first = browser.cookies.get(SESSION)
  t.ok(first, 'signed in')

  // Both tabs ask for the upload permission from the same session.
  const tabA = await startLogin(browser, '/auth/login?scope=upload')
  const tabB = await startLogin(browser, '/auth/login?scope=upload')
  await callbackFromAnotherSite(browser, await consent(browser, tabA))
  const second = browser.cookies.get(SESSION)
  t.not(second, first, 'tab A\'s sign-in rotated the session')
  await callbackFromAnotherSite(browser, await consent(browser, tabB))
  const third = browser.cookies.get(SESSION)
  t.not(third, second, 'tab B\'s too')

  const sessions = await browser.get('/auth/sessions')
  t.equal(sessions.json().sessions.length, 1, 'one session left: tab B replaced the one tab A made')
  for (const [name, cookie] of [['the first', first], ['tab A\'s', second]] as const) {
    const stale = stack.bff.browser({ cookie: `${SESSION}=${cookie ?? ''}` })
    t.equal((await stale.get('/auth/session')).json().authenticated, false, `${name} session is gone`)
  }
  t.match((await browser.get('/auth/session')).json(), { authenticated: true, scopes: ['basic', 'user.info', 'upload'] })
})
