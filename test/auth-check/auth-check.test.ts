// GET /auth/check as a reverse proxy's sub-request meets it, against the emulator: signed out
// (where to sign in), signed in (who, and an assertion that verifies against the JWK Set with a
// standard JWT library), a scope missing, forwarded headers believed only from TRUST_PROXY, and
// nothing of a token or the cookie in any answer or log line.
import t from 'tap'
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose'
import { Value } from 'typebox/value'
import { startStack } from '../helpers/bff.js'
import { signIn } from '../helpers/sign-in.js'
import { AssertionClaims } from '../../src/contract/index.js'
import { testAssertionKey } from '../helpers/secrets.js'

const keys = [testAssertionKey('k2'), testAssertionKey('k1', 'ed25519')]

t.test('signed out, signed in, a scope missing; the assertion verifies', async (t) => {
  const { bff, close } = await startStack({ env: { ASSERTION_KEYS: keys.join(','), ASSERTION_AUDIENCE: 'https://site.example' } })
  t.teardown(close)
  const proxy = bff.browser()

  const out = await proxy.navigate('/auth/check')
  t.equal(out.status, 401)
  t.equal(out.json().error, 'login_required')
  t.equal(out.headers['x-media-bff-login'], `${bff.url}/auth/login?return_to=%2F`, 'where to sign in, absolute, back to the root (no trusted proxy named a page)')
  t.equal(out.json().login_url, out.headers['x-media-bff-login'])
  t.equal(out.headers['cache-control'], 'no-store')

  await signIn(proxy)
  const cookie = proxy.cookieHeader() ?? ''
  const checked = await proxy.navigate('/auth/check')
  t.equal(checked.status, 200)
  t.equal(checked.headers['x-auth-request-user'], '1')
  t.equal(checked.headers['x-auth-request-email'], 'alice@example.test')
  t.equal(checked.headers['x-auth-request-tenant'], 'default')
  t.equal(checked.headers['x-auth-request-scopes'], 'basic user.info')
  t.equal(checked.headers['set-cookie'], undefined, 'a check sets no cookie')
  const jwt = String(checked.headers['x-media-bff-assertion'])
  t.match(decodeProtectedHeader(jwt), { alg: 'ES256', kid: 'k2', typ: 'JWT' }, 'signed by the first key')

  const jwks = await proxy.navigate('/.well-known/jwks.json')
  t.equal(jwks.status, 200)
  t.match(jwks.headers['cache-control'], /^public, max-age=\d+$/)
  t.same(jwks.json().keys.map((key: { kid: string, alg: string }) => [key.kid, key.alg]), [['k2', 'ES256'], ['k1', 'EdDSA']], 'every key served, in order')
  t.notOk(JSON.stringify(jwks.json()).includes('"d"'), 'no private part')
  const { payload } = await jwtVerify(jwt, createLocalJWKSet(jwks.json()), { issuer: bff.url, audience: 'https://site.example', algorithms: ['ES256', 'EdDSA'] })
  t.ok(Value.Check(AssertionClaims, payload), 'the claims as the contract declares them')
  t.match(payload, { sub: '1', email: 'alice@example.test', tenant: 'default', scope: 'basic user.info' })
  t.ok((payload.exp ?? 0) - (payload.iat ?? 0) <= 120, 'ASSERTION_LIFETIME: two minutes by default')
  const sessions = (await proxy.get('/auth/sessions')).json()
  t.equal(payload.sid, sessions.sessions[0].id, 'sid is the session\'s id as its person\'s list shows it')

  const missing = await proxy.navigate('/auth/check?scope=upload')
  t.equal(missing.status, 403)
  t.equal(missing.json().error, 'insufficient_scope')
  t.same(missing.json().required_scopes, ['upload'])
  const consent = new URL(String(missing.headers['x-media-bff-login']))
  t.equal(consent.searchParams.get('scope'), 'basic user.info upload')
  t.equal(missing.json().reauthorize_url, consent.href)

  const unknown = await proxy.navigate('/auth/check?scope=admin')
  t.equal(unknown.status, 400)
  t.equal(unknown.json().error, 'invalid_request')

  const forged = await bff.browser({ cookie: cookie.replace(/\.[^.;]+(;|$)/, '.forged$1') }).navigate('/auth/check')
  t.equal(forged.status, 401, 'a cookie whose signature fails is nobody')

  for (const answer of [out, checked, missing, unknown, jwks]) {
    const text = `${JSON.stringify(answer.headers)}${answer.text}`
    t.notOk(text.includes(cookie.split('=')[1] ?? '-'), 'never the cookie')
  }
  t.notOk(bff.logs.join('').includes(cookie.split('=')[1] ?? '-'), 'the cookie in no log line')
})

t.test('a page\'s address comes back only from a trusted proxy', async (t) => {
  const forwarded = { 'x-forwarded-uri': '/editors/draft?id=7', 'x-forwarded-method': 'GET', 'x-forwarded-host': 'evil.example' }
  const untrusted = await startStack({})
  t.teardown(untrusted.close)
  const direct = await untrusted.bff.browser().navigate('/auth/check', { 'x-forwarded-uri': '/editors/draft?id=7' })
  t.equal(new URL(String(direct.headers['x-media-bff-login'])).searchParams.get('return_to'), '/', 'an untrusted peer names no page')

  const trusted = await startStack({ env: { TRUST_PROXY: 'loopback', ALLOWED_ORIGINS: 'http://localhost:8080' } })
  t.teardown(trusted.close)
  const returnTo = async (headers: Record<string, string>): Promise<string | null> => {
    const answer = await trusted.bff.browser().navigate('/auth/check', headers)
    return new URL(String(answer.headers['x-media-bff-login'])).searchParams.get('return_to')
  }
  t.equal(await returnTo({ 'x-forwarded-uri': '/editors/draft?id=7' }), '/editors/draft?id=7', 'the page asked about')
  const host = new URL(trusted.bff.url).host
  t.equal(await returnTo({ 'x-forwarded-uri': '/editors/draft?id=7', 'x-forwarded-host': host }), '/editors/draft?id=7', 'on PUBLIC_URL: a path')
  t.equal(await returnTo({ 'x-forwarded-uri': '/a', 'x-forwarded-host': 'localhost:8080' }), 'http://localhost:8080/a', 'an allowed origin: its URL')
  t.equal(await returnTo(forwarded), '/', 'a host that is not the site\'s')
  t.equal(await returnTo({ ...forwarded, 'x-forwarded-host': host, 'x-forwarded-method': 'POST' }), '/', 'a POST cannot be repeated')
  t.equal(await returnTo({ 'x-forwarded-uri': '//evil.example/x' }), '/', 'a path that leaves the site')
  t.equal(await returnTo({ 'x-forwarded-uri': 'https://evil.example/x' }), '/', 'an absolute URL')

  // Traefik's ForwardAuth: a GET with the page in X-Forwarded-*, and the refusal passed to the browser.
  const traefik = trusted.bff.browser()
  const page = await traefik.navigate('/auth/check?redirect=1', { 'x-forwarded-uri': '/editors/x', 'x-forwarded-method': 'GET' })
  t.equal(page.status, 302, 'redirect=1: a page\'s GET goes on to sign in')
  t.equal(new URL(page.location ?? '').searchParams.get('return_to'), '/editors/x')
  const form = await traefik.navigate('/auth/check?redirect=1', { 'x-forwarded-uri': '/editors/save', 'x-forwarded-method': 'POST' })
  t.equal(form.status, 401, 'a form\'s POST gets the refusal')
})

t.test('as Envoy\'s ext_authz asks: the request itself, its path after /auth/check', async (t) => {
  const { bff, close } = await startStack({ env: { TRUST_PROXY: 'loopback' } })
  t.teardown(close)
  const envoy = bff.browser()
  const page = await envoy.navigate('/auth/check/editors/drafts?id=7')
  t.equal(page.status, 302, 'a page\'s GET, signed out: on to the sign-in, which Envoy passes to the browser')
  t.equal(new URL(page.location ?? '').searchParams.get('return_to'), '/editors/drafts?id=7')
  const save = await envoy.fetch('POST', '/auth/check/editors/save', { headers: { 'content-type': 'application/json' } })
  t.equal(save.status, 401, 'any other method: the refusal, no redirect')
  t.equal(save.json().error, 'login_required')
  t.equal(new URL(String(save.headers['x-media-bff-login'])).searchParams.get('return_to'), '/', 'a POST is not come back to')
  await signIn(envoy)
  for (const [method, body] of [['GET', undefined], ['HEAD', undefined], ['POST', ''], ['DELETE', '{"ignored":true}']] as const) {
    const checked = await envoy.fetch(method, '/auth/check/editors/x', { headers: body === undefined ? {} : { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body }) })
    t.equal(checked.status, 200, `${method}: signed in`)
    t.equal(checked.headers['x-auth-request-user'], '1')
  }
  const untrusted = await startStack({})
  t.teardown(untrusted.close)
  const answer = await untrusted.bff.browser().navigate('/auth/check/editors/drafts')
  t.equal(new URL(answer.location ?? '').searchParams.get('return_to'), '/', 'from a peer not in TRUST_PROXY, no page is believed')
})

t.test('a write another site\'s page started is never signed in; its reads, and the site\'s own writes, are', async (t) => {
  const { bff, close } = await startStack({ env: { TRUST_PROXY: 'loopback' } })
  t.teardown(close)
  const proxy = bff.browser()
  await signIn(proxy)
  const asked = async (method: string, site: string) => await proxy.navigate('/auth/check', { 'x-forwarded-method': method, 'x-forwarded-uri': '/editors/save', 'sec-fetch-site': site })
  t.equal((await asked('POST', 'cross-site')).status, 401, 'a form another site posted: signed out (with FRAME_ANCESTORS its cookie comes along)')
  t.equal((await asked('DELETE', 'cross-site')).status, 401)
  t.equal((await asked('GET', 'cross-site')).status, 200, 'a link followed from there: signed in')
  t.equal((await asked('POST', 'same-origin')).status, 200, 'the site\'s own form: signed in')
  t.equal((await proxy.fetch('POST', '/auth/check/editors/save', { headers: { 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' }, body: '' })).status, 401, 'as Envoy asks it too')
})

t.test('ASSERTION_KEYS unset: a key made at start signs, and this instance serves it', async (t) => {
  const { bff, close } = await startStack({})
  t.teardown(close)
  const proxy = bff.browser()
  await signIn(proxy)
  const jwt = String((await proxy.navigate('/auth/check')).headers['x-media-bff-assertion'])
  const jwks = (await proxy.navigate('/.well-known/jwks.json')).json()
  t.equal(jwks.keys.length, 1)
  t.match(jwks.keys[0], { kid: /^made-at-start-/, alg: 'ES256' })
  const { payload } = await jwtVerify(jwt, createLocalJWKSet(jwks), { issuer: bff.url, audience: bff.url })
  t.equal(payload.sub, '1')
})

t.test('ASSERTION_KEYS=none: the identity without an assertion, an empty key set', async (t) => {
  const { bff, close } = await startStack({ env: { ASSERTION_KEYS: 'none' } })
  t.teardown(close)
  const proxy = bff.browser()
  await signIn(proxy)
  const checked = await proxy.navigate('/auth/check')
  t.equal(checked.status, 200)
  t.equal(checked.headers['x-auth-request-user'], '1')
  t.equal(checked.headers['x-media-bff-assertion'], '', 'sent empty: a proxy copying it replaces a client\'s')
  t.same((await proxy.navigate('/.well-known/jwks.json')).json(), { keys: [] })
})
