// A session cookie media-bff cannot use (forged, unknown, signed with a retired secret) is
// cleared. For a __Host- cookie the clearing Set-Cookie must itself carry Secure (and Path=/),
// or browsers ignore it and keep sending the bad cookie.
import t from 'tap'
import { startBff } from '../helpers/bff.js'
import { parseSetCookie } from '../helpers/http-client.js'
import type { RunningEmulator } from '../../emulator/index.js'

t.test('clearing a forged __Host- cookie carries Secure, HttpOnly and Path=/', async (t) => {
  const upstream = { baseUrl: 'http://127.0.0.1:9', clientId: 'client', clientSecret: 'secret' } as RunningEmulator
  const bff = await startBff(upstream, { PUBLIC_URL: 'https://bff.example' })
  t.teardown(bff.close)
  t.equal(bff.config.session.cookieName, '__Host-Http-media-bff')
  for (const forged of ['forged-session-id.not-a-signature', 'x', 'a.b.c']) {
    const answer = await bff.browser({ cookie: `__Host-Http-media-bff=${forged}` }).get('/auth/session')
    t.equal(answer.status, 200)
    const clearing = answer.setCookies.map(parseSetCookie).find((cookie) => cookie.name === '__Host-Http-media-bff')
    t.ok(clearing, `${forged}: the cookie is cleared`)
    t.equal(clearing?.value, '', 'with an empty value')
    t.equal(clearing?.attributes.secure, true, 'Secure, or the browser ignores it')
    t.equal(clearing?.attributes.path, '/', 'Path=/')
    t.equal(clearing?.attributes.httponly, true, 'HttpOnly')
  }
})
