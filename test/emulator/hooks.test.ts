// The /__emulator hooks and the RunningEmulator functions beside them; start and stop.
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { request } from 'undici'
import { startEmulator } from '../../emulator/index.js'
import { apiCall, authorizeUrl, postFile, registerUpload, signIn, startTestEmulator, tokenRequest, user } from '../helpers/emulator.js'

t.test('counters over HTTP equal counters(), and reset', async (t) => {
  const emulator = await startTestEmulator(t)
  const tokens = await signIn(emulator)
  await tokenRequest(emulator, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })
  await tokenRequest(emulator, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })
  await apiCall(`${emulator.baseUrl}/api/user/info`, { privateToken: user(emulator, 'alice').privateToken })
  const record = await registerUpload(emulator)
  await request(record.url_upload_direct, { method: 'OPTIONS', headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'POST' } }).then(async (answer) => { await answer.body.dump() })
  await postFile(record.url_upload_direct)
  await apiCall(record.api.finish, { method: 'DELETE', privateToken: user(emulator, 'alice').privateToken })
  const expected = { tokenGrants: { authorization_code: 1, refresh_token: 1 }, refreshReuseDetections: 1, registrations: 1, finishes: 1, uploads: 1, uploadPreflights: 1, userInfo: 1 }
  t.same(emulator.counters(), expected)
  t.same((await apiCall(`${emulator.baseUrl}/__emulator/counters`)).body, expected)
  const reset = await apiCall(`${emulator.baseUrl}/__emulator/reset-counters`, { method: 'POST' })
  t.same(reset.body, { tokenGrants: { authorization_code: 0, refresh_token: 0 }, refreshReuseDetections: 0, registrations: 0, finishes: 0, uploads: 0, uploadPreflights: 0, userInfo: 0 })
  t.same(emulator.counters(), reset.body)
  const copy = emulator.counters()
  copy.uploads = 99
  t.equal(emulator.counters().uploads, 0, 'counters() hands out a copy')
})

t.test('tokens lists issued tokens with their state', async (t) => {
  const emulator = await startTestEmulator(t)
  const tokens = await signIn(emulator, { scope: 'basic upload' })
  const rotated = await tokenRequest(emulator, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })
  const listed = (await apiCall(`${emulator.baseUrl}/__emulator/tokens`)).body
  t.match(listed.access_tokens, [{ token: tokens.access_token, user: 'alice', scope: 'basic upload', state: 'active' }, { token: rotated.body.access_token, state: 'active' }])
  t.match(listed.refresh_tokens, [{ token: tokens.refresh_token, state: 'retired' }, { token: rotated.body.refresh_token, state: 'active' }])
  t.match(listed.private_tokens, [{ user: 'alice', token: user(emulator, 'alice').privateToken }, { user: 'bob' }])
})

t.test('grants issues tokens as a code exchange would, cut to what the user may grant; they work, refresh and revoke like any', async (t) => {
  const emulator = await startTestEmulator(t)
  const granted = await apiCall(`${emulator.baseUrl}/__emulator/grants`, { method: 'POST', json: { user: 'bob', scope: 'basic user.info upload' } })
  t.equal(granted.status, 200)
  t.match(granted.body, { token_type: 'Bearer', scope: 'basic user.info', expires_in: 3600, user_id: String(user(emulator, 'bob').userId) }, 'upload left out: bob may not grant it')
  t.equal((await apiCall(`${emulator.baseUrl}/api/user/info`, { token: granted.body.access_token })).status, 200, 'the access token works')
  const refreshed = await tokenRequest(emulator, { grant_type: 'refresh_token', refresh_token: granted.body.refresh_token })
  t.equal(refreshed.status, 200, 'and so does the refresh token')
  const direct = emulator.grantTokens('alice', ['basic', 'upload'])
  t.equal(direct.scope, 'basic upload')
  emulator.revokeTokens('alice')
  t.equal((await apiCall(`${emulator.baseUrl}/api/user/info`, { token: direct.access_token })).status, 401, 'revoked like any grant')
  t.equal(emulator.counters().tokenGrants.authorization_code, 0, 'not counted as code exchanges')
  t.equal((await apiCall(`${emulator.baseUrl}/__emulator/grants`, { method: 'POST', json: { user: 'mallory' } })).status, 400)
})

t.test('revoke ends the grants of one user or of all', async (t) => {
  const emulator = await startTestEmulator(t)
  const alice = await signIn(emulator, { user: 'alice' })
  const bob = await signIn(emulator, { user: 'bob' })
  const revoked = await apiCall(`${emulator.baseUrl}/__emulator/revoke`, { method: 'POST', json: { user: 'alice' } })
  t.same(revoked.body, { revoked_grants: 1 })
  t.equal((await tokenRequest(emulator, { grant_type: 'refresh_token', refresh_token: alice.refresh_token })).body.error, 'invalid_grant')
  t.equal((await apiCall(`${emulator.baseUrl}/api/user/info`, { token: alice.access_token })).status, 401)
  const bobRefreshed = await tokenRequest(emulator, { grant_type: 'refresh_token', refresh_token: bob.refresh_token })
  t.equal(bobRefreshed.status, 200, 'bob is untouched')
  t.equal((await apiCall(`${emulator.baseUrl}/api/user/info`, { privateToken: user(emulator, 'alice').privateToken })).status, 200, 'private tokens survive')
  t.equal((await apiCall(`${emulator.baseUrl}/__emulator/revoke`, { method: 'POST', json: { user: 'mallory' } })).status, 400)
  emulator.revokeTokens()
  t.equal((await tokenRequest(emulator, { grant_type: 'refresh_token', refresh_token: bobRefreshed.body.refresh_token as string })).body.error, 'invalid_grant')
  t.equal((await apiCall(`${emulator.baseUrl}/__emulator/revoke`, { method: 'POST' })).status, 200, 'an empty body revokes all')
})

t.test('config changes the redirect URI, the access token TTL and rotation at run time', async (t) => {
  const emulator = await startTestEmulator(t)
  const oldRedirect = emulator.redirectUri
  const changed = await apiCall(`${emulator.baseUrl}/__emulator/config`, { method: 'POST', json: { redirectUri: 'http://127.0.0.1:5555/auth/callback', accessTokenTtl: 42 } })
  t.same(changed.body, { redirectUri: 'http://127.0.0.1:5555/auth/callback', accessTokenTtl: 42, rotateRefreshTokens: true, processingMs: 3000 })
  t.equal(emulator.redirectUri, 'http://127.0.0.1:5555/auth/callback')
  const old = await request(authorizeUrl(emulator, { extra: { redirect_uri: oldRedirect } }))
  t.equal(old.statusCode, 400, 'the old redirect URI is no longer registered')
  await old.body.dump()
  const tokens = await signIn(emulator)
  t.equal(tokens.expires_in, 42)
  emulator.configure({ rotateRefreshTokens: false })
  const refreshed = await tokenRequest(emulator, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })
  t.equal(refreshed.body.refresh_token, tokens.refresh_token)
  t.same((await apiCall(`${emulator.baseUrl}/__emulator/config`)).body.rotateRefreshTokens, false)
  for (const bad of [{ redirectUri: 'not a url' }, { accessTokenTtl: 0 }, { rotateRefreshTokens: 'no' }, { processingMs: -1 }, { processingMs: 1.5 }, { clientSecret: 'x' }]) {
    t.equal((await apiCall(`${emulator.baseUrl}/__emulator/config`, { method: 'POST', json: bad })).status, 400, JSON.stringify(bad))
  }
  t.equal(emulator.redirectUri, 'http://127.0.0.1:5555/auth/callback', 'bad input changed nothing')
})

t.test('users and stats', async (t) => {
  const emulator = await startTestEmulator(t, { users: [{ name: 'alice', scopes: ['basic'], privateToken: 'fixed-token-1' }] })
  const users = (await apiCall(`${emulator.baseUrl}/__emulator/users`)).body.users
  t.same(users, [{ user_id: 1, name: 'alice', full_name: 'Alice Example', email: 'alice@example.test', scopes: ['basic'], private_token: 'fixed-token-1' }])
  const stats = (await apiCall(`${emulator.baseUrl}/__emulator/stats`)).body
  t.ok(stats.rss > 0)
})

t.test('options are validated', async (t) => {
  await t.rejects(startEmulator({ apiPort: 70000 }), /apiPort/)
  await t.rejects(startEmulator({ apiPort: 0, uploadPort: 0, redirectUri: 'nope' }), /redirectUri/)
  await t.rejects(startEmulator({ apiPort: 0, uploadPort: 0, users: [{ name: 'x', scopes: ['root'] }] }), /unknown scope/)
  await t.rejects(startEmulator({ apiPort: 0, uploadPort: 0, users: [] }), /at least one user/)
})

t.test('stop closes open connections and removes its own data dir only', async (t) => {
  const emulator = await startEmulator({ apiPort: 0, uploadPort: 0 })
  emulator.injectFault({ endpoint: 'user_info', delayMs: 60_000 })
  const hanging = request(`${emulator.baseUrl}/api/user/info`).then(() => 'answered', (error: unknown) => error)
  await new Promise((resolve) => setTimeout(resolve, 50))
  const started = Date.now()
  await emulator.stop()
  t.ok(Date.now() - started < 1000, 'stop does not wait for a hanging call')
  t.type(await hanging, Error, 'the hanging call is cut off')
  await t.rejects(stat(emulator.dataDir), 'the temporary data dir is gone')
  await emulator.stop()
  t.pass('stop is idempotent')

  const dataDir = await mkdtemp(join(tmpdir(), 'emulator-test-'))
  t.teardown(async () => { await rm(dataDir, { recursive: true, force: true }) })
  const kept = await startEmulator({ apiPort: 0, uploadPort: 0, dataDir })
  await kept.stop()
  t.ok((await stat(join(dataDir, 'files'))).isDirectory(), 'a given data dir is kept')

  const first = await startEmulator({ apiPort: 0, uploadPort: 0 })
  t.teardown(async () => { await first.stop() })
  await t.rejects(startEmulator({ apiPort: Number(new URL(first.apiOrigin).port), uploadPort: 0 }), /could not listen/, 'a taken port fails clearly')
})
