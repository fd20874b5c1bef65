// The token endpoint over real HTTP: both grants, PKCE, single-use codes, rotation with reuse
// detection, client authentication and scope intersection.
import t from 'tap'
import { request } from 'undici'
import { apiCall, authorizationCode, pkcePair, signIn, startTestEmulator, tokenRequest } from '../helpers/emulator.js'

t.test('a code is exchanged for tokens, with body or Basic client authentication', async (t) => {
  const emulator = await startTestEmulator(t, { accessTokenTtl: 120 })
  for (const auth of ['body', 'basic'] as const) {
    const code = await authorizationCode(emulator, { scope: 'basic user.info upload' })
    const answer = await tokenRequest(emulator, { grant_type: 'authorization_code', code, redirect_uri: emulator.redirectUri }, auth)
    t.equal(answer.status, 200, auth)
    t.equal(answer.headers['cache-control'], 'no-store')
    t.match(answer.body, { token_type: 'Bearer', expires_in: 120, scope: 'basic user.info upload', user_id: 1 })
    t.match(answer.body.access_token, /^[A-Za-z0-9_-]{43}$/)
    t.match(answer.body.refresh_token, /^[A-Za-z0-9_-]{43}$/)
  }
  t.equal(emulator.counters().tokenGrants.authorization_code, 2)
})

t.test('client authentication failures are invalid_client with a challenge', async (t) => {
  const emulator = await startTestEmulator(t)
  const code = await authorizationCode(emulator)
  const base = { grant_type: 'authorization_code', code, redirect_uri: emulator.redirectUri }
  const wrongSecret = await tokenRequest(emulator, { ...base, client_id: emulator.clientId, client_secret: 'nope' }, 'none')
  t.equal(wrongSecret.status, 401)
  t.match(wrongSecret.body, { error: 'invalid_client', error_description: String, user_message: String })
  t.match(wrongSecret.headers['www-authenticate'], /^Basic /)
  const missing = await tokenRequest(emulator, base, 'none')
  t.equal(missing.status, 401)
  t.equal(missing.body.error, 'invalid_client')
  const badBasic = await request(`${emulator.baseUrl}/api/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${emulator.clientId}:wrong`).toString('base64')}` },
    body: new URLSearchParams(base).toString()
  })
  t.equal(badBasic.statusCode, 401)
  t.match(badBasic.headers['www-authenticate'], /error="invalid_client"/)
  t.equal((await badBasic.body.json() as { error: string }).error, 'invalid_client')
  const both = await request(`${emulator.baseUrl}/api/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${emulator.clientId}:${emulator.clientSecret}`).toString('base64')}` },
    body: new URLSearchParams({ ...base, client_secret: emulator.clientSecret }).toString()
  })
  t.equal(both.statusCode, 400, 'two authentication methods at once')
  t.equal((await both.body.json() as { error: string }).error, 'invalid_request')
  t.equal(emulator.counters().tokenGrants.authorization_code, 0)
})

t.test('malformed token requests get RFC 6749 errors', async (t) => {
  const emulator = await startTestEmulator(t)
  const noGrant = await tokenRequest(emulator, {})
  t.equal(noGrant.status, 400)
  t.match(noGrant.body, { error: 'invalid_request', error_description: String, user_message: String })
  const password = await tokenRequest(emulator, { grant_type: 'password', username: 'alice', password: 'x' })
  t.equal(password.status, 400)
  t.equal(password.body.error, 'unsupported_grant_type')
  const noCode = await tokenRequest(emulator, { grant_type: 'authorization_code' })
  t.equal(noCode.body.error, 'invalid_request')
  const unknownCode = await tokenRequest(emulator, { grant_type: 'authorization_code', code: 'nope', redirect_uri: emulator.redirectUri })
  t.equal(unknownCode.status, 400)
  t.equal(unknownCode.body.error, 'invalid_grant')
  const json = await request(`${emulator.baseUrl}/api/oauth2/token`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'refresh_token' })
  })
  t.equal(json.statusCode, 400)
  t.equal((await json.body.json() as { error: string }).error, 'invalid_request')
  const repeated = await request(`${emulator.baseUrl}/api/oauth2/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=refresh_token&grant_type=refresh_token'
  })
  t.equal(repeated.statusCode, 400)
  await repeated.body.dump()
})

t.test('redirect_uri must match the authorization request', async (t) => {
  const emulator = await startTestEmulator(t)
  const code = await authorizationCode(emulator)
  const other = await tokenRequest(emulator, { grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1:9/other' })
  t.equal(other.body.error, 'invalid_grant')
  const missing = await tokenRequest(emulator, { grant_type: 'authorization_code', code })
  t.equal(missing.body.error, 'invalid_grant')
  const right = await tokenRequest(emulator, { grant_type: 'authorization_code', code, redirect_uri: emulator.redirectUri })
  t.equal(right.status, 200, 'a failed attempt does not consume the code')
})

t.test('PKCE S256 and plain pass with the verifier and fail without it', async (t) => {
  const emulator = await startTestEmulator(t)
  for (const method of ['S256', 'plain'] as const) {
    const { verifier, challenge } = pkcePair(method)
    const code = await authorizationCode(emulator, { codeChallenge: challenge, codeChallengeMethod: method })
    const base = { grant_type: 'authorization_code', code, redirect_uri: emulator.redirectUri }
    const missing = await tokenRequest(emulator, base)
    t.equal(missing.status, 400, `${method}: missing verifier`)
    t.equal(missing.body.error, 'invalid_grant')
    const wrong = await tokenRequest(emulator, { ...base, code_verifier: pkcePair(method).verifier })
    t.equal(wrong.body.error, 'invalid_grant', `${method}: wrong verifier`)
    const right = await tokenRequest(emulator, { ...base, code_verifier: verifier })
    t.equal(right.status, 200, `${method}: right verifier`)
  }
  const { verifier, challenge } = pkcePair('S256')
  const code = await authorizationCode(emulator, { codeChallenge: challenge, extra: { code_challenge_method: 'plain' } })
  const mixed = await tokenRequest(emulator, { grant_type: 'authorization_code', code, redirect_uri: emulator.redirectUri, code_verifier: verifier })
  t.equal(mixed.body.error, 'invalid_grant', 'an S256 challenge declared plain does not verify')
})

t.test('a code works once; its reuse fails and revokes the tokens it produced', async (t) => {
  const emulator = await startTestEmulator(t)
  const code = await authorizationCode(emulator)
  const params = { grant_type: 'authorization_code', code, redirect_uri: emulator.redirectUri }
  const first = await tokenRequest(emulator, params)
  t.equal(first.status, 200)
  const accessToken = first.body.access_token as string
  t.equal((await apiCall(`${emulator.baseUrl}/api/user/info`, { token: accessToken })).status, 200)
  const second = await tokenRequest(emulator, params)
  t.equal(second.status, 400)
  t.equal(second.body.error, 'invalid_grant')
  t.equal((await apiCall(`${emulator.baseUrl}/api/user/info`, { token: accessToken })).status, 401, 'the access token is revoked')
  const refresh = await tokenRequest(emulator, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token as string })
  t.equal(refresh.body.error, 'invalid_grant', 'the refresh token is revoked')
})

t.test('refresh rotates, and reusing a retired refresh token revokes the family', async (t) => {
  const emulator = await startTestEmulator(t)
  const tokens = await signIn(emulator, { scope: 'basic user.info upload' })
  const first = await tokenRequest(emulator, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })
  t.equal(first.status, 200)
  t.not(first.body.refresh_token, tokens.refresh_token, 'a new refresh token')
  t.not(first.body.access_token, tokens.access_token)
  t.equal(first.body.scope, 'basic user.info upload')
  const second = await tokenRequest(emulator, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token as string }, 'basic')
  t.equal(second.status, 200, 'the new one works (with Basic too)')
  t.equal(emulator.counters().tokenGrants.refresh_token, 2)

  const reuse = await tokenRequest(emulator, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })
  t.equal(reuse.status, 400)
  t.equal(reuse.body.error, 'invalid_grant')
  t.equal(emulator.counters().refreshReuseDetections, 1)
  const latest = await tokenRequest(emulator, { grant_type: 'refresh_token', refresh_token: second.body.refresh_token as string })
  t.equal(latest.body.error, 'invalid_grant', 'the newest refresh token of the family is dead too')
  t.equal((await apiCall(`${emulator.baseUrl}/api/user/info`, { token: second.body.access_token as string })).status, 401, 'and its access tokens')

  const other = await signIn(emulator)
  t.equal((await tokenRequest(emulator, { grant_type: 'refresh_token', refresh_token: other.refresh_token })).status, 200, 'other families live on')
})

t.test('without rotation the refresh token stays the same', async (t) => {
  const emulator = await startTestEmulator(t, { rotateRefreshTokens: false })
  const tokens = await signIn(emulator)
  for (let i = 0; i < 2; i++) {
    const answer = await tokenRequest(emulator, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })
    t.equal(answer.status, 200)
    t.equal(answer.body.refresh_token, tokens.refresh_token)
  }
  t.equal(emulator.counters().refreshReuseDetections, 0)
})

t.test('a refresh may narrow the scope but not widen it', async (t) => {
  const emulator = await startTestEmulator(t)
  const tokens = await signIn(emulator, { scope: 'basic user.info upload' })
  const wider = await tokenRequest(emulator, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, scope: 'basic share' })
  t.equal(wider.status, 400)
  t.equal(wider.body.error, 'invalid_scope')
  const narrower = await tokenRequest(emulator, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, scope: 'basic' })
  t.equal(narrower.status, 200)
  t.equal(narrower.body.scope, 'basic')
  const again = await tokenRequest(emulator, { grant_type: 'refresh_token', refresh_token: narrower.body.refresh_token as string })
  t.equal(again.body.scope, 'basic user.info upload', 'the grant keeps its full scope')
})

t.test('the grant is the intersection of the request and the entitlements', async (t) => {
  const emulator = await startTestEmulator(t)
  const bob = await signIn(emulator, { user: 'bob', scope: 'basic user.info upload' })
  t.equal(bob.scope, 'basic user.info')
  t.equal(bob.user_id, 2)
  const upload = await apiCall(`${emulator.baseUrl}/api/upload/id`, { method: 'POST', token: bob.access_token })
  t.equal(upload.status, 403)
  const alice = await signIn(emulator, { user: 'alice', scope: 'upload share' })
  t.equal(alice.scope, 'upload share')
})

t.test('refresh tokens and access tokens expire per their TTL', async (t) => {
  const emulator = await startTestEmulator(t, { refreshTokenTtl: 0.3, accessTokenTtl: 0.3 })
  const tokens = await signIn(emulator)
  t.equal((await apiCall(`${emulator.baseUrl}/api/user/info`, { token: tokens.access_token })).status, 200)
  await new Promise((resolve) => setTimeout(resolve, 400))
  const info = await apiCall(`${emulator.baseUrl}/api/user/info`, { token: tokens.access_token })
  t.equal(info.status, 401)
  t.equal(info.body.error, 'invalid_token')
  const answer = await tokenRequest(emulator, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })
  t.equal(answer.body.error, 'invalid_grant')
})

t.test('an expired code is invalid_grant', async (t) => {
  const emulator = await startTestEmulator(t, { authorizationCodeTtl: 0.2 })
  const code = await authorizationCode(emulator)
  await new Promise((resolve) => setTimeout(resolve, 250))
  const answer = await tokenRequest(emulator, { grant_type: 'authorization_code', code, redirect_uri: emulator.redirectUri })
  t.equal(answer.status, 400)
  t.match(answer.body, { error: 'invalid_grant', error_description: /expired/ })
})
