// The authorization endpoint over real HTTP: the consent page, its validation, approve and deny.
import t from 'tap'
import { request } from 'undici'
import { authorizeRedirect, authorizeUrl, hiddenFields, startTestEmulator } from '../helpers/emulator.js'

t.test('the consent page renders the users, the buttons and the escaped request', async (t) => {
  const emulator = await startTestEmulator(t)
  const answer = await request(authorizeUrl(emulator, { state: '"><script>alert(1)</script>', scope: 'basic upload' }))
  const html = await answer.body.text()
  t.equal(answer.statusCode, 200)
  t.match(answer.headers['content-type'], /^text\/html/)
  t.equal(answer.headers['cache-control'], 'no-store')
  t.match(html, /<input type="radio" name="user" id="user-alice" value="alice" checked>/)
  t.match(html, /id="user-bob"/)
  t.match(html, /<button type="submit" name="decision" value="approve" id="approve">/)
  t.match(html, /<button type="submit" name="decision" value="deny" id="deny">/)
  t.notMatch(html, /<script>/, 'nothing from the request is rendered unescaped')
  t.match(html, /&quot;&gt;&lt;script&gt;/)
  t.match(html, /<form method="post"/)
  const form = hiddenFields(html)
  t.equal(form.get('state'), '"><script>alert(1)</script>', 'hidden fields carry the request')
  t.equal(form.get('redirect_uri'), emulator.redirectUri)
  t.equal(form.get('scope'), 'basic upload')
})

t.test('approve redirects with code and state and without iss', async (t) => {
  const emulator = await startTestEmulator(t)
  const location = await authorizeRedirect(emulator, { state: 'xyz' })
  t.equal(`${location.origin}${location.pathname}`, emulator.redirectUri)
  t.match(location.searchParams.get('code'), /^[A-Za-z0-9_-]{43}$/)
  t.equal(location.searchParams.get('state'), 'xyz')
  t.equal(location.searchParams.has('iss'), false)
})

t.test('deny redirects with access_denied, a description, a message and the state', async (t) => {
  const emulator = await startTestEmulator(t)
  const location = await authorizeRedirect(emulator, { state: 'abc', decision: 'deny' })
  t.equal(location.searchParams.get('error'), 'access_denied')
  t.ok(location.searchParams.get('error_description'))
  t.ok(location.searchParams.get('message'))
  t.equal(location.searchParams.get('state'), 'abc')
  t.equal(location.searchParams.has('code'), false)
})

t.test('a bad client or redirect URI gets an error page, never a redirect', async (t) => {
  const emulator = await startTestEmulator(t)
  const cases: Array<[string, Record<string, string>]> = [
    ['unknown client', { client_id: 'someone-else' }],
    ['empty client', { client_id: '' }],
    ['foreign redirect URI', { redirect_uri: 'https://evil.example/callback' }],
    ['redirect URI with extra path', { redirect_uri: `${emulator.redirectUri}/x` }],
    ['no redirect URI', { redirect_uri: '' }]
  ]
  for (const [name, extra] of cases) {
    const answer = await request(authorizeUrl(emulator, { extra }))
    const html = await answer.body.text()
    t.equal(answer.statusCode, 400, name)
    t.equal(answer.headers.location, undefined, `${name}: no redirect`)
    t.match(html, /cannot be served/, name)
  }
  const duplicated = `${authorizeUrl(emulator)}&client_id=${emulator.clientId}`
  const answer = await request(duplicated)
  await answer.body.dump()
  t.equal(answer.statusCode, 400, 'a repeated client_id is an error page')
})

t.test('other bad parameters are redirected back as errors', async (t) => {
  const emulator = await startTestEmulator(t)
  const cases: Array<[string, Record<string, string>, string]> = [
    ['token response type', { response_type: 'token' }, 'unsupported_response_type'],
    ['missing response type', { response_type: '' }, 'invalid_request'],
    ['unknown scope', { scope: 'basic admin' }, 'invalid_scope'],
    ['unknown PKCE method', { code_challenge: 'a'.repeat(43), code_challenge_method: 'S512' }, 'invalid_request'],
    ['method without challenge', { code_challenge_method: 'S256' }, 'invalid_request'],
    ['short S256 challenge', { code_challenge: 'abc', code_challenge_method: 'S256' }, 'invalid_request']
  ]
  for (const [name, extra, error] of cases) {
    const answer = await request(authorizeUrl(emulator, { state: 's1', extra }))
    await answer.body.dump()
    t.equal(answer.statusCode, 302, name)
    const location = new URL(answer.headers.location as string)
    t.equal(`${location.origin}${location.pathname}`, emulator.redirectUri, name)
    t.equal(location.searchParams.get('error'), error, name)
    t.ok(location.searchParams.get('error_description'), name)
    t.equal(location.searchParams.get('state'), 's1', name)
  }
  const answer = await request(`${authorizeUrl(emulator)}&scope=basic`)
  await answer.body.dump()
  t.equal(new URL(answer.headers.location as string).searchParams.get('error'), 'invalid_request', 'a repeated scope')
})

t.test('the posted form is validated again', async (t) => {
  const emulator = await startTestEmulator(t)
  const page = await request(authorizeUrl(emulator))
  const form = hiddenFields(await page.body.text())
  const post = async (fields: URLSearchParams, type = 'application/x-www-form-urlencoded'): Promise<{ status: number, location: unknown, html: string }> => {
    const answer = await request(`${emulator.baseUrl}/api/oauth2/authorize`, { method: 'POST', headers: { 'content-type': type }, body: fields.toString() })
    return { status: answer.statusCode, location: answer.headers.location, html: await answer.body.text() }
  }

  const unknownUser = new URLSearchParams(form)
  unknownUser.set('user', 'mallory')
  unknownUser.set('decision', 'approve')
  const first = await post(unknownUser)
  t.equal(first.status, 400)
  t.match(first.html, /Choose one of the listed users/)

  const noDecision = new URLSearchParams(form)
  noDecision.set('user', 'alice')
  t.equal((await post(noDecision)).status, 400)

  const tampered = new URLSearchParams(form)
  tampered.set('redirect_uri', 'https://evil.example/cb')
  tampered.set('user', 'alice')
  tampered.set('decision', 'approve')
  const third = await post(tampered)
  t.equal(third.status, 400)
  t.equal(third.location, undefined)

  const asJson = await post(form, 'application/json')
  t.equal(asJson.status, 415)
})
