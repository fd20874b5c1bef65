// Front-ends on another allowed origin may call the JSON API with credentials; others may not.
import t from 'tap'
import { startStack } from '../helpers/bff.js'
import { signIn } from '../helpers/sign-in.js'

t.test('CORS answers preflights only for ALLOWED_ORIGINS', async (t) => {
  const stack = await startStack({ env: { ALLOWED_ORIGINS: 'https://www.site.example' } })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  const preflight = (origin: string) => browser.fetch('OPTIONS', '/auth/logout', {
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-csrf,content-type' }
  })
  const allowed = await preflight('https://www.site.example')
  t.equal(allowed.status, 204)
  t.equal(allowed.headers['access-control-allow-origin'], 'https://www.site.example')
  t.equal(allowed.headers['access-control-allow-credentials'], 'true')
  t.match(String(allowed.headers['access-control-allow-headers']), /x-csrf/)

  const foreign = await preflight('https://evil.example')
  t.notOk(foreign.headers['access-control-allow-origin'], 'no CORS grant for a foreign origin')

  await signIn(browser)
  const session = await browser.get('/auth/session', { origin: 'https://www.site.example' })
  t.equal(session.headers['access-control-allow-origin'], 'https://www.site.example')
  t.equal(session.json().authenticated, true)
  const logout = await browser.post('/auth/logout', undefined, { origin: 'https://www.site.example' })
  t.equal(logout.status, 200)
})
