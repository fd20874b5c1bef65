// Several tenants, one API client and one redirect URI: ?tenant= picks one, the grant is bound
// to it, and its calls go to that tenant's API.
import t from 'tap'
import { startEmulator } from '../../emulator/index.js'
import { startBff } from '../helpers/bff.js'
import { freePort } from '../helpers/ports.js'
import { signIn } from '../helpers/sign-in.js'

t.test('tenant chosen at login, grant bound to it, unknown tenant refused', async (t) => {
  const port = await freePort()
  const redirectUri = `http://127.0.0.1:${port}/auth/callback`
  const client = { clientId: 'one-client', clientSecret: 'one-secret-for-all-tenants', redirectUri }
  const north = await startEmulator({ apiPort: 0, uploadPort: 0, ...client })
  const south = await startEmulator({ apiPort: 0, uploadPort: 0, ...client })
  const bff = await startBff(north, {
    MEDIA_BASE_URL: undefined,
    MEDIA_TENANTS: `north=${north.baseUrl},south=${south.baseUrl}`,
    MEDIA_DEFAULT_TENANT: 'north',
    OAUTH_CLIENT_ID: client.clientId,
    OAUTH_CLIENT_SECRET: client.clientSecret,
    OAUTH_SCOPES: 'basic user.info upload'
  }, port)
  t.teardown(async () => { await bff.close(); await north.stop(); await south.stop() })

  const browser = bff.browser()
  const { authorizeUrl } = await signIn(browser, { loginPath: '/auth/login?tenant=south' })
  t.equal(new URL(authorizeUrl).origin, south.baseUrl, 'sent to the south tenant')
  const session = (await browser.get('/auth/session')).json()
  t.equal(session.tenant, 'south')
  const record = (await browser.post('/uploads/register', { folder_id: 0 })).json()
  t.ok(record.url_upload_direct.startsWith(south.uploadOrigin), 'registered at the south tenant')
  t.equal(south.counters().registrations, 1)
  t.equal(north.counters().registrations, 0)

  const other = bff.browser()
  const { authorizeUrl: defaultUrl } = await signIn(other)
  t.equal(new URL(defaultUrl).origin, north.baseUrl, 'the default tenant')

  const unknown = await bff.browser().get('/auth/login?tenant=west')
  t.equal(unknown.status, 400)
  t.equal(unknown.json().error, 'invalid_request')
  t.equal(unknown.json().field, 'tenant')
})
