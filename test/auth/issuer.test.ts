// RFC 9207 at the callback: `iss` is checked before anything else the authorization response
// says, and a tenant can require it (OAUTH_REQUIRE_ISS). Driven through a stand-in service that
// sends whatever authorization response the test asks for.
import t from 'tap'
import { startBff } from '../helpers/bff.js'
import { LOGIN_TO_BACK, signInWithoutConsent } from '../helpers/sign-in.js'
import { asUpstream, startHostileService } from '../hardening/hostile-media-service.js'

const service = await startHostileService()
t.teardown(service.close)
const upstream = asUpstream(service)

function respondWith (params: Record<string, string>): void {
  service.reset()
  Object.assign(service.callbackParams, params)
}

t.test('by default iss is optional, but a wrong one is refused, also on an error response', async (t) => {
  const bff = await startBff(upstream)
  t.teardown(bff.close)
  respondWith({})
  t.equal(await signInWithoutConsent(bff.browser(), LOGIN_TO_BACK), '/back', 'no iss: accepted')
  respondWith({ iss: service.baseUrl })
  t.equal(await signInWithoutConsent(bff.browser(), LOGIN_TO_BACK), '/back', 'the right iss: accepted')
  respondWith({ iss: 'https://other-issuer.example' })
  t.equal(await signInWithoutConsent(bff.browser(), LOGIN_TO_BACK), '/back?auth_error=issuer_mismatch', 'another issuer: a mix-up')
  // An error response from a mixed-up issuer must not be reported as that issuer's error.
  respondWith({ iss: 'https://other-issuer.example', error: 'access_denied' })
  t.equal(await signInWithoutConsent(bff.browser(), LOGIN_TO_BACK), '/back?auth_error=issuer_mismatch', 'checked before the error branch')
})

t.test('OAUTH_REQUIRE_ISS=on refuses a response without iss', async (t) => {
  const bff = await startBff(upstream, { OAUTH_REQUIRE_ISS: 'on' })
  t.teardown(bff.close)
  respondWith({})
  t.equal(await signInWithoutConsent(bff.browser(), LOGIN_TO_BACK), '/back?auth_error=issuer_mismatch')
  respondWith({ error: 'access_denied' })
  t.equal(await signInWithoutConsent(bff.browser(), LOGIN_TO_BACK), '/back?auth_error=issuer_mismatch', 'an error response without iss too')
  respondWith({ iss: service.baseUrl })
  t.equal(await signInWithoutConsent(bff.browser(), LOGIN_TO_BACK), '/back', 'with the right iss the sign-in completes')
})

t.test('OAUTH_REQUIRE_ISS names tenants; an unknown name is a configuration error', async (t) => {
  const bff = await startBff(upstream, { OAUTH_REQUIRE_ISS: 'default' })
  t.teardown(bff.close)
  t.equal(bff.config.tenants.get('default')?.requireIss, true)
  await t.rejects(startBff(upstream, { OAUTH_REQUIRE_ISS: 'nowhere' }), /OAUTH_REQUIRE_ISS: names no tenant "nowhere"/)
})
