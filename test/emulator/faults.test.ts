// Fault injection does what it says: delay, fail N calls, drop the connection, answer nonsense;
// over HTTP and through RunningEmulator, which share one implementation.
import t from 'tap'
import { request } from 'undici'
import { apiCall, authorizationCode, postFile, registerUpload, startTestEmulator, tokenRequest, user } from '../helpers/emulator.js'

// Long enough that an undelayed call on a busy machine (stalls of half a second were seen in CI)
// still comes back well within it.
const DELAY_MS = 1500

t.test('delayMs slows every call to the endpoint until cleared', async (t) => {
  const emulator = await startTestEmulator(t)
  const alice = user(emulator, 'alice')
  const injected = await apiCall(`${emulator.baseUrl}/__emulator/faults`, { method: 'POST', json: { endpoint: 'user_info', delayMs: DELAY_MS } })
  t.equal(injected.status, 200)
  t.match(injected.body.faults, [{ endpoint: 'user_info', delayMs: DELAY_MS }])
  for (let i = 0; i < 2; i++) {
    const started = Date.now()
    t.equal((await apiCall(`${emulator.baseUrl}/api/user/info`, { privateToken: alice.privateToken })).status, 200)
    t.ok(Date.now() - started >= DELAY_MS - 10, `call ${i + 1} was delayed`)
  }
  const started = Date.now()
  await apiCall(`${emulator.baseUrl}/api/folders/0`, { privateToken: alice.privateToken })
  t.ok(Date.now() - started < DELAY_MS, 'other endpoints are not')
  t.equal((await apiCall(`${emulator.baseUrl}/__emulator/faults`, { method: 'DELETE' })).status, 200)
  const after = Date.now()
  await apiCall(`${emulator.baseUrl}/api/user/info`, { privateToken: alice.privateToken })
  t.ok(Date.now() - after < DELAY_MS, 'cleared')
})

t.test('failStatus with failCount fails exactly the next N calls with a JSON error', async (t) => {
  const emulator = await startTestEmulator(t)
  await apiCall(`${emulator.baseUrl}/__emulator/faults`, { method: 'POST', json: { endpoint: 'token', failStatus: 503, failCount: 2 } })
  const code = await authorizationCode(emulator)
  const params = { grant_type: 'authorization_code', code, redirect_uri: emulator.redirectUri }
  for (let i = 0; i < 2; i++) {
    const answer = await tokenRequest(emulator, params)
    t.equal(answer.status, 503)
    t.match(answer.body, { error: 'injected_fault', error_description: String, user_message: String })
  }
  t.equal((await tokenRequest(emulator, params)).status, 200, 'the third call goes through')
  t.equal(emulator.counters().tokenGrants.authorization_code, 1)
})

t.test('drop destroys the connection without an answer', async (t) => {
  const emulator = await startTestEmulator(t)
  emulator.injectFault({ endpoint: 'upload_id', drop: true })
  await t.rejects(request(`${emulator.baseUrl}/api/upload/id`, { method: 'POST', headers: { authorization: `Private-Token ${user(emulator, 'alice').privateToken}` } }))
  t.equal(emulator.counters().registrations, 0)
  const record = await registerUpload(emulator)
  t.ok(record.ulid, 'one call only (failCount defaults to 1)')
  emulator.injectFault({ endpoint: 'upload_direct', drop: true, failCount: 2 })
  await t.rejects(postFile(record.url_upload_direct))
  await t.rejects(postFile(record.url_upload_direct, { content: Buffer.alloc(256 * 1024) }), 'also with a body in flight')
  t.equal((await postFile(record.url_upload_direct)).status, 200)
})

t.test('malformed answers 200 with a body that is not JSON', async (t) => {
  const emulator = await startTestEmulator(t)
  const record = await registerUpload(emulator)
  emulator.injectFault({ endpoint: 'finish', malformed: true })
  const answer = await request(record.api.finish, { method: 'DELETE', headers: { authorization: `Private-Token ${user(emulator, 'alice').privateToken}` } })
  t.equal(answer.statusCode, 200)
  t.match(answer.headers['content-type'], /application\/json/)
  const text = await answer.body.text()
  t.throws(() => JSON.parse(text))
  t.equal((await apiCall(record.api.finish, { method: 'DELETE', privateToken: user(emulator, 'alice').privateToken })).body.status, 'success')
})

t.test('the * endpoint, a delay plus a failure, and clearFaults', async (t) => {
  const emulator = await startTestEmulator(t)
  emulator.injectFault({ endpoint: '*', failStatus: 500, failCount: 3 })
  const page = await request(`${emulator.baseUrl}/api/oauth2/authorize`)
  t.equal(page.statusCode, 500, 'authorize')
  await page.body.dump()
  t.equal((await apiCall(`${emulator.baseUrl}/api/user/info`)).status, 500, 'user_info')
  const record = await apiCall(`${emulator.baseUrl}/api/upload/id`, { method: 'POST' })
  t.equal(record.status, 500, 'upload_id')
  t.equal((await apiCall(`${emulator.baseUrl}/api/user/info`)).status, 401, 'three calls only')
  t.equal((await apiCall(`${emulator.baseUrl}/__emulator/counters`)).status, 200, 'hooks are never faulted')

  emulator.injectFault({ endpoint: 'user_info', delayMs: 150 })
  emulator.injectFault({ endpoint: 'user_info', failStatus: 429 })
  const started = Date.now()
  t.equal((await apiCall(`${emulator.baseUrl}/api/user/info`)).status, 429)
  t.ok(Date.now() - started >= 140, 'delayed, then failed')
  emulator.clearFaults()
  t.same((await apiCall(`${emulator.baseUrl}/__emulator/faults`)).body.faults, [])
  t.equal((await apiCall(`${emulator.baseUrl}/api/user/info`)).status, 401)
})

t.test('bad fault specifications are 400 (and throw from injectFault)', async (t) => {
  const emulator = await startTestEmulator(t)
  const bad: unknown[] = [
    { endpoint: 'nowhere', failStatus: 500 },
    { endpoint: 'token' },
    { endpoint: 'token', failStatus: 200 },
    { endpoint: 'token', failStatus: 500, drop: true },
    { endpoint: 'token', delayMs: -1 },
    { endpoint: 'token', failCount: 2 },
    { endpoint: 'token', drop: 'yes' },
    { endpoint: 'token', failStatus: 500, surprise: 1 },
    [1, 2]
  ]
  for (const spec of bad) {
    const answer = await apiCall(`${emulator.baseUrl}/__emulator/faults`, { method: 'POST', json: spec })
    t.equal(answer.status, 400, JSON.stringify(spec))
    t.match(answer.body, { error: 'invalid_request', error_description: String, user_message: String })
  }
  t.throws(() => { emulator.injectFault({ endpoint: 'token' }) })
  t.same((await apiCall(`${emulator.baseUrl}/__emulator/faults`)).body.faults, [])
})
