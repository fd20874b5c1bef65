// The production topology behind real nginx: sign-in, register and finish over https, one
// session served by both replicas, Secure __Host- cookies through the proxy, forwarded headers
// believed only from the proxy's address, and nginx's logs free of query strings.
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { request } from 'undici'
import { Browser, parseSetCookie, type HttpResponse } from '../helpers/http-client.js'
import { startNginx } from '../helpers/nginx.js'
import { freePort } from '../helpers/ports.js'
import { consent, onServer, signIn, startLogin } from '../helpers/sign-in.js'
import { uploadDirect } from '../helpers/direct-upload.js'
import { PROXY_ADDRESS, nextGoesTo, startProductionStack } from './stack.js'

const COOKIE = '__Host-Http-media-bff'

const sessionCookie = (response: HttpResponse): ReturnType<typeof parseSetCookie> | undefined =>
  response.setCookies.map(parseSetCookie).find((cookie) => cookie.name === COOKIE)

const stack = await startProductionStack(t)
const [replicaA, replicaB] = stack.replicas as [typeof stack.replicas[0], typeof stack.replicas[0]]

t.test('sign in through one replica, register and finish served by the other, all through nginx', async (t) => {
  const browser = stack.browser()
  const { callback, authorizeUrl } = await signIn(browser)
  t.equal(new URL(authorizeUrl).searchParams.get('redirect_uri'), `${stack.publicUrl}/auth/callback`)
  t.equal(callback.status, 302)
  const signedInOn = stack.servedBy(callback)
  const other = signedInOn === replicaA ? replicaB : replicaA

  const cookie = sessionCookie(callback)
  t.ok(cookie, 'the callback set the session cookie')
  t.match(cookie?.attributes, { secure: true, httponly: true, path: '/', samesite: 'Strict' }, 'Secure, HttpOnly, Path=/, SameSite=Strict through the proxy')
  t.notOk(cookie?.attributes.domain, '__Host- cookies carry no Domain')

  await nextGoesTo(stack, other)
  const session = await browser.get('/auth/session')
  t.equal(stack.servedBy(session), other, `/auth/session served by ${other.name}`)
  t.match(session.json(), { authenticated: true, user: { name: 'Alice Example' }, scopes: ['basic', 'user.info', 'upload'] })

  await nextGoesTo(stack, other)
  const registered = await browser.post('/uploads/register', { folder_id: 0, title: 'Through the proxy' })
  t.equal(registered.status, 200, registered.text)
  t.equal(stack.servedBy(registered), other, `register served by ${other.name}, not ${signedInOn.name} that signed in`)
  const record = registered.json()
  t.equal((await uploadDirect(record.url_upload_direct, 'proxy.txt', 'via nginx')).status, 200)

  await nextGoesTo(stack, signedInOn)
  const finished = await browser.post(record.finish_url)
  t.equal(finished.status, 200, finished.text)
  t.equal(stack.servedBy(finished), signedInOn, `finish of a registration made on ${other.name} served by ${signedInOn.name}`)
  t.match(finished.json(), { status: 'success', files: [{ filename: 'proxy.txt' }] })

  // The replicas' own logs agree with the proxy: each one served part of this sign-in.
  const served = (replica: typeof replicaA, path: string): boolean =>
    replica.logs().some((line) => line.msg === 'request completed' && (line.req as { path?: string } | undefined)?.path === path)
  t.ok(served(signedInOn, '/auth/callback'), `${signedInOn.name} logged the callback`)
  t.notOk(served(other, '/auth/callback'), `${other.name} never saw the callback`)
  t.ok(served(other, '/uploads/register'), `${other.name} logged the registration`)
})

t.test('plain http is redirected to https with the path kept', async (t) => {
  const answer = await request(`${stack.nginx.httpUrl}/auth/session?x=1`)
  await answer.body.dump()
  t.equal(answer.statusCode, 308)
  t.equal(answer.headers.location, `${stack.publicUrl}/auth/session?x=1`)
})

t.test('the proxy does not publish /metrics or /docs; each replica serves them on its own address', async (t) => {
  const browser = stack.browser()
  const authorization = `Bearer ${stack.metricsToken}`
  for (const path of ['/metrics', '/docs', '/metrics?x=1', '//metrics', '/%6Detrics', '/docs?format=json']) {
    const answer = await browser.get(path, { authorization })
    t.equal(answer.status, 404, `${path} through nginx`)
    t.match(answer.json(), { error: 'not_found' }, path)
  }
  const direct = await request(`${replicaA.url}/metrics`, { headers: { authorization } })
  t.equal(direct.statusCode, 200)
  t.match(await direct.body.text(), /media_bff_http_request_duration_seconds/)
  const docs = await request(`${replicaA.url}/docs`, { headers: { authorization } })
  t.equal(docs.statusCode, 200)
  await docs.body.dump()
})

t.test('the browser module through the proxy: the current module at the stable path, revalidated; a version cached for good', async (t) => {
  const browser = stack.browser()
  const stable = await browser.get('/client/media-bff-client.js')
  t.equal(stable.status, 200)
  t.equal(stable.headers['cache-control'], 'no-cache')
  t.match(stable.text, /export \{[^}]*createMediaBffClient/)
  const version = String(stable.headers.etag).replaceAll('"', '')
  const again = await browser.get('/client/media-bff-client.js', { 'if-none-match': String(stable.headers.etag) })
  t.equal(again.status, 304, 'nginx passes the revalidation through')
  const versioned = await browser.get(`/client/${version}/media-bff-client.js`)
  t.equal(versioned.status, 200)
  t.equal(versioned.headers['content-type'], 'text/javascript; charset=utf-8')
  t.equal(versioned.headers['cache-control'], 'public, max-age=31536000, immutable')
  t.equal(versioned.headers['access-control-allow-origin'], '*')
  t.equal(versioned.text, stable.text)
})

t.test('the proxy does not publish the operators\' lever; a replica answers it with OPERATOR_TOKEN', async (t) => {
  const operator = { authorization: `Bearer ${stack.operatorToken}`, 'x-csrf': '1' }
  // A user nobody signed in as: this must end nothing the other tests rely on.
  for (const path of ['/operator/users/default/nobody/sessions', '//operator/users/default/nobody/sessions', '/%6Fperator/users/default/nobody/sessions']) {
    const answer = await stack.browser().fetch('DELETE', path, { headers: operator })
    t.equal(answer.status, 404, `${path} through nginx`)
  }
  const direct = await request(`${replicaA.url}/operator/users/default/nobody/sessions`, { method: 'DELETE', headers: operator })
  t.equal(direct.statusCode, 200, 'on the replica itself')
  t.same(await direct.body.json(), { ended: 0 })
})

t.test('X-Forwarded-For: believed from the proxy, a client\'s own entries ignored', async (t) => {
  const loggedIp = async (replica: typeof replicaA, path: string): Promise<unknown> => {
    const line = await replica.waitForLog((l) => l.msg === 'request completed' && (l.req as { path?: string } | undefined)?.path === path)
    return (line.req as { ip?: unknown }).ip
  }
  const viaProxy = `/not-here-${Date.now()}`
  const answer = await stack.browser().get(viaProxy, { 'x-forwarded-for': '203.0.113.9' })
  t.equal(answer.status, 404)
  t.equal(await loggedIp(stack.servedBy(answer), viaProxy), '127.0.0.1', 'the address nginx saw, not the one the client wrote')

  const direct = `/not-here-direct-${Date.now()}`
  await new Browser(replicaA.url).get(direct, { 'x-forwarded-for': '203.0.113.9' })
  t.equal(await loggedIp(replicaA, direct), '127.0.0.1', 'from an address outside TRUST_PROXY the header is ignored')
})

t.test('X-Forwarded-Proto: honoured from TRUST_PROXY only; the redirect URI never changes', async (t) => {
  const walk = async (browser: Browser): Promise<{ authorizeUrl: string, callback: HttpResponse }> => {
    const authorizeUrl = await startLogin(browser)
    const callbackUrl = await consent(browser, authorizeUrl)
    return { authorizeUrl, callback: await browser.get(onServer(browser, callbackUrl)) }
  }
  const redirectUri = (authorizeUrl: string): string | null => new URL(authorizeUrl).searchParams.get('redirect_uri')

  // The replica trusts only nginx's address (127.0.0.2); the test calls it from 127.0.0.1.
  t.not(stack.env.TRUST_PROXY, '127.0.0.1')
  const claimed = new Browser(replicaA.url, { 'x-forwarded-proto': 'https' })
  const exchangesBefore = stack.emulator.counters().tokenGrants.authorization_code
  const untrusted = await walk(claimed)
  t.equal(redirectUri(untrusted.authorizeUrl), `${stack.publicUrl}/auth/callback`, 'redirect URI from PUBLIC_URL, not from the request')
  t.equal(untrusted.callback.status, 400, 'request.protocol stayed http: the sign-in is refused, saying why')
  t.match(untrusted.callback.text, /plain http/)
  t.notOk(sessionCookie(untrusted.callback), 'no Secure session cookie issued')
  t.equal(stack.emulator.counters().tokenGrants.authorization_code, exchangesBefore, 'its code was never exchanged: no grant is left behind')
  t.equal((await claimed.get('/auth/session')).json().authenticated, false)

  const proxied = await walk(stack.browser())
  t.equal(redirectUri(proxied.authorizeUrl), `${stack.publicUrl}/auth/callback`)
  t.match(sessionCookie(proxied.callback)?.attributes, { secure: true }, 'nginx\'s X-Forwarded-Proto makes the request https')

  // A replica that trusts the test's own address believes the very same header.
  const replicaC = await stack.startReplica('replica-c', { TRUST_PROXY: '127.0.0.1' })
  const believed = new Browser(replicaC.url, { 'x-forwarded-proto': 'https' })
  const trusted = await walk(believed)
  t.equal(redirectUri(trusted.authorizeUrl), `${stack.publicUrl}/auth/callback`)
  t.match(sessionCookie(trusted.callback)?.attributes, { secure: true })
  t.equal((await believed.get('/auth/session')).json().authenticated, true)
})

t.test('nginx logs no query string: not the callback\'s code and state, not any other, in the access log or the error log', async (t) => {
  const browser = stack.browser()
  const { callback, callbackUrl } = await signIn(browser)
  t.equal(callback.status, 302, 'signed in through nginx')
  const code = new URL(callbackUrl).searchParams.get('code') ?? ''
  const state = new URL(callbackUrl).searchParams.get('state') ?? ''
  const marker = randomBytes(16).toString('hex')
  t.equal((await browser.get(`/auth/session?probe=${marker}`)).status, 200)
  const query = new URL(callbackUrl).search

  // nginx writes the request line into every message about a request; these two are at level
  // error. A body over client_max_body_size, on the callback's URL:
  const tooLarge = await browser.fetch('POST', `/auth/callback${query}`, { headers: { 'content-type': 'application/json' }, body: 'x'.repeat(70 * 1024) })
  t.equal(tooLarge.status, 413)
  // and the callback's URL sent through an nginx whose replica refuses connections.
  const failing = await startNginx({
    upstreams: [`127.0.0.1:${await freePort()}`],
    certFile: stack.cert.certFile,
    keyFile: stack.cert.keyFile,
    extraServerDirectives: [`proxy_bind ${PROXY_ADDRESS};`]
  })
  t.teardown(failing.stop)
  const unreachable = await new Browser(failing.httpsUrl).get(`/auth/callback${query}&probe=${marker}`)
  t.equal(unreachable.status, 502)

  const logs = {
    'access log': await stack.nginx.accessLog(),
    'error log': await stack.nginx.errorLog(),
    'access log of the failing proxy': await failing.accessLog(),
    'error log of the failing proxy': await failing.errorLog()
  }
  t.match(logs['access log'], /"GET \/auth\/callback HTTP\/[\d.]+" 302 /, 'the callback is logged, by its path alone')
  t.match(logs['access log'], /"POST \/auth\/callback HTTP\/[\d.]+" 413 /, 'so is the refused body')
  t.match(logs['access log of the failing proxy'], /"GET \/auth\/callback HTTP\/[\d.]+" 502 .*upstream_status=502/, 'the failed upstream shows in the access log instead')
  for (const [name, log] of Object.entries(logs)) {
    for (const [what, value] of [['code', code], ['state', state], ['marker', marker]] as const) {
      t.notOk(log.includes(value), `the ${name} holds no ${what}`)
    }
    t.notMatch(log, /\?[\w-]+=/, `the ${name} holds no query string at all`)
  }
})
