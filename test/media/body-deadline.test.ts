// A media service that sends its status line at once and then drips the body, each gap shorter
// than the agent's body timeout, is still cut off at the call's deadline: 504, not a request that
// hangs as long as the service likes.
import t from 'tap'
import { startBff } from '../helpers/bff.js'
import { signInWithoutConsent } from '../helpers/sign-in.js'
import { asUpstream, startHostileService } from '../hardening/hostile-media-service.js'

t.test('a dripping body ends in 504 at the deadline', async (t) => {
  const service = await startHostileService()
  t.teardown(service.close)
  const bff = await startBff(asUpstream(service), {
    OAUTH_SCOPES: 'basic user.info upload',
    UPLOAD_ALLOWED_HOSTS: new URL(service.baseUrl).host,
    UPSTREAM_TIMEOUT_MS: '600'
  })
  t.teardown(bff.close)
  const browser = bff.browser()
  await signInWithoutConsent(browser)
  const drips: NodeJS.Timeout[] = []
  t.teardown(() => { for (const drip of drips) clearInterval(drip) })
  service.answer('upload_id', () => ({
    write: (response) => {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.write('{"ulid":')
      // A space every 200 ms: never a gap the agent's body timeout (600 ms) would notice.
      const drip = setInterval(() => { if (!response.destroyed) response.write(' ') }, 200)
      drips.push(drip)
      response.on('close', () => { clearInterval(drip) })
    }
  }))
  const answer = await browser.post('/uploads/register', { folder_id: 0 })
  t.equal(answer.status, 504)
  t.equal(answer.json().error, 'upstream_timeout')
})
