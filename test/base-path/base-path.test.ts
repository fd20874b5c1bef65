// media-bff under BASE_PATH, over HTTP in front of the emulator: every route answers under the
// path and nowhere else; the sign-in goes out with the callback under it and comes back to it; the
// URLs media-bff hands out (login_url, reauthorize_url, finish_url, relayed links, the browser
// module) carry it; cookies keep the __Host- rules (Path=/); metric labels stay as without it.
import { readFile } from 'node:fs/promises'
import t from 'tap'
import { request } from 'undici'
import { startStack } from '../helpers/bff.js'
import { signIn } from '../helpers/sign-in.js'
import { uploadDirect } from '../helpers/direct-upload.js'

const BASE = '/media-bff'
const stack = await startStack({ env: { BASE_PATH: BASE, OAUTH_SCOPES: 'basic user.info upload' } })
t.teardown(stack.close)
const { bff } = stack

t.test('every route answers under the base path, and nothing at the root', async (t) => {
  const routes = routePaths(bff.app.printRoutes({ commonPrefix: false }))
  t.ok(routes.length > 20, `${routes.length} routes`)
  // The printed tree shows a wildcard on a line of its own: which one it is, hasRoute says.
  t.same(routes.filter((route) => !route.startsWith(`${BASE}/`) && route !== '*'), [], 'none outside it')
  t.ok(bff.app.hasRoute({ method: 'OPTIONS', url: `${BASE}/*` }), 'the CORS preflight route under it too')
  t.notOk(bff.app.hasRoute({ method: 'OPTIONS', url: '*' }))
  for (const path of ['/healthz', '/auth/session', '/client/media-bff-client.js', '/metrics']) {
    const outside = await request(`${bff.url}${path}`, { headers: { 'x-csrf': '1' } })
    t.equal(outside.statusCode, 404, path)
    t.match(await outside.body.json(), { error: 'not_found' })
    const inside = await request(`${bff.url}${BASE}${path}`, { headers: { 'x-csrf': '1' } })
    await inside.body.dump()
    t.equal(inside.statusCode, 200, `${BASE}${path}`)
  }
})

t.test('/healthz names the version this replica runs (a rolling upgrade shows which is which)', async (t) => {
  const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
  t.same((await bff.browser().get(`${BASE}/healthz`)).json(), { status: 'ok', version })
})

t.test('signed out: the session names the sign-in under the base path', async (t) => {
  const session = await bff.browser().get(`${BASE}/auth/session`)
  t.same(session.json(), { authenticated: false, login_url: `${BASE}/auth/login` })
})

t.test('a whole sign-in under the base path; the cookie keeps Path=/', async (t) => {
  const browser = bff.browser()
  const { authorizeUrl, callbackUrl, callback } = await signIn(browser, { loginPath: `${BASE}/auth/login?return_to=/site/page` })
  t.equal(new URL(authorizeUrl).searchParams.get('redirect_uri'), `${bff.url}${BASE}/auth/callback`)
  t.equal(new URL(callbackUrl).pathname, `${BASE}/auth/callback`)
  t.equal(callback.status, 302)
  t.equal(callback.location, '/site/page', 'back to the site\'s own page, outside the base path')
  t.match(callback.setCookies.join('\n'), /media-bff=[^;]+;.*Path=\//)
  const session = (await browser.get(`${BASE}/auth/session`)).json()
  t.equal(session.authenticated, true)

  const registered = await browser.post(`${BASE}/uploads/register`, { folder_id: 0 })
  t.equal(registered.status, 200)
  t.match(registered.json().finish_url, new RegExp(`^${BASE}/uploads/[0-9A-Z]{26}/finish$`))
  const sent = await uploadDirect(registered.json().url_upload_direct, 'a.jpg', 'bytes', { title: 'A' })
  t.equal(sent.status, 200)
  const finished = await browser.post(registered.json().finish_url)
  t.equal(finished.status, 200, 'finish_url is where finishing answers')

  const folder = await browser.get(`${BASE}/api/folders/0`)
  t.equal(folder.status, 200)
  t.equal(folder.json().api.contents, `${bff.url}${BASE}/api/folders/0/contents`, 'relayed links lead back through media-bff, under the base path')

  const consent = await browser.fetch('POST', `${BASE}/api/folders/0`, { headers: { 'x-csrf': '1' }, json: { name: 'Needs manage' } })
  t.equal(consent.status, 403)
  t.match(consent.json().reauthorize_url, new RegExp(`^${BASE}/auth/login\\?`), 'consent is asked under the base path')

  const logout = await browser.fetch('POST', `${BASE}/auth/logout`, { headers: { 'x-csrf': '1' } })
  t.equal(logout.status, 200)
})

t.test('the browser module is served under the base path', async (t) => {
  const stable = await request(`${bff.url}${BASE}/client/media-bff-client.js`)
  t.equal(stable.statusCode, 200)
  t.match(await stable.body.text(), /createMediaBffClient/)
  const outside = await request(`${bff.url}/client/media-bff-client.js`)
  await outside.body.dump()
  t.equal(outside.statusCode, 404, 'not at the root')
})

t.test('metric labels are the routes as written, whatever the base path', async (t) => {
  const metrics = await (await request(`${bff.url}${BASE}/metrics`)).body.text()
  t.match(metrics, /media_bff_http_request_duration_seconds_count\{[^}]*route="\/auth\/session"/)
  t.notMatch(metrics, new RegExp(`route="${BASE}`))
})

/** Whole paths from Fastify's printed route tree: each line adds its segment to its parent's. */
function routePaths (tree: string): string[] {
  const stack: string[] = []
  const paths: string[] = []
  for (const line of tree.split('\n')) {
    const at = line.search(/[^\s│├└─]/)
    if (at < 0) continue
    const depth = Math.floor(at / 4)
    const segment = line.slice(at).replace(/ \(.*\)$/, '')
    stack.length = depth - 1
    stack.push(segment)
    paths.push(stack.join(''))
  }
  return paths
}
