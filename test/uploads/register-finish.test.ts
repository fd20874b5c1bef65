// POST /uploads/register and POST /uploads/:ulid/finish against the real emulator: the happy
// path and every error row of the contract that these two routes can produce.
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { startStack } from '../helpers/bff.js'
import { signIn } from '../helpers/sign-in.js'
import { uploadDirect } from '../helpers/direct-upload.js'
import { defaultUserInputs } from '../../emulator/fixture-users.js'

const uploadEnv = { OAUTH_SCOPES: 'basic user.info upload' }

t.test('register, upload straight to the upload host, finish', async (t) => {
  const stack = await startStack({ env: uploadEnv })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  await signIn(browser)
  const registered = await browser.post('/uploads/register', { folder_id: 5, title: 'Holiday' })
  t.equal(registered.status, 200)
  const record = registered.json()
  t.match(record.ulid, /^[0-9A-HJKMNP-TV-Z]{26}$/)
  t.ok(record.url_upload_direct.startsWith(stack.emulator.uploadOrigin), 'the upload host, not the API host')
  t.not(new URL(record.url_upload_direct).origin, stack.emulator.baseUrl)
  t.equal(record.finish_url, `/uploads/${String(record.ulid)}/finish`)
  t.equal(record.api.finish, `${stack.emulator.baseUrl}/api/upload/id/${String(record.ulid)}`)
  t.type(record.expires, 'number')
  t.ok(record.expires_in > 0)

  const sent = await uploadDirect(record.url_upload_direct, 'a.txt', 'hello media', { title: 'A text' })
  t.equal(sent.status, 200)
  t.equal(sent.body.status, 'success')
  t.notOk('file_id' in sent.body, 'hide_response was sent: no file id to the browser')

  const finished = await browser.post(record.finish_url)
  t.equal(finished.status, 200)
  t.equal(finished.json().status, 'success')
  t.equal(finished.json().files.length, 1)
  t.match(finished.json().files[0], { title: 'A text', filename: 'a.txt', size: 11 })
  t.equal(stack.emulator.counters().finishes, 1)
  t.equal((await browser.post(record.finish_url)).status, 200, 'finishing twice is safe')
})

t.test('operator policy caps what the browser asks for', async (t) => {
  const stack = await startStack({ env: { ...uploadEnv, UPLOAD_MAX_FILESIZE: '10', UPLOAD_FILE_EXTENSIONS: 'txt,jpg' } })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  await signIn(browser)
  const record = (await browser.post('/uploads/register', { folder_id: 0, options: { max_filesize: 1000000, file_extensions: ['txt', 'exe'] } })).json()
  t.equal((await uploadDirect(record.url_upload_direct, 'big.txt', 'x'.repeat(11))).status, 413, 'capped at the operator max')
  t.not((await uploadDirect(record.url_upload_direct, 'tool.exe', 'x')).status, 200, 'exe is not allowed by policy')
  t.equal((await uploadDirect(record.url_upload_direct, 'ok.txt', 'x'.repeat(10))).status, 200)
})

t.test('400 invalid_request for bodies that fail the schema, naming the field', async (t) => {
  const stack = await startStack({ env: uploadEnv })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  await signIn(browser)
  const cases: Array<[unknown, string]> = [
    [{}, 'folder_id'],
    [{ folder_id: -1 }, 'folder_id'],
    [{ folder_id: 1.5 }, 'folder_id'],
    [{ folder_id: 'abc' }, 'folder_id'],
    [{ folder_id: 2 ** 40 }, 'folder_id'],
    [{ folder_id: 0, title: '' }, 'title'],
    [{ folder_id: 0, colour: 'red' }, ''],
    [{ folder_id: true }, 'folder_id'],
    [{ folder_id: '5' }, 'folder_id'],
    [{ folder_id: 0, title: 5 }, 'title'],
    [{ folder_id: 0, options: { max_files: 0 } }, 'options.max_files'],
    [{ folder_id: 0, options: { hide_response: false } }, 'options'],
    [{ folder_id: 0, options: { file_extensions: ['../x'] } }, 'options.file_extensions']
  ]
  for (const [body, field] of cases) {
    const answer = await browser.post('/uploads/register', body)
    t.equal(answer.status, 400, JSON.stringify(body))
    t.equal(answer.json().error, 'invalid_request')
    t.type(answer.json().message, 'string')
    if (field !== '') t.match(answer.json().field, field)
  }
  const broken = await browser.fetch('POST', '/uploads/register', { headers: { 'x-csrf': '1', 'content-type': 'application/json' }, body: '{"folder_id":' })
  t.equal(broken.status, 400)
  t.equal(broken.json().error, 'invalid_request')
  const form = await browser.fetch('POST', '/uploads/register', { headers: { 'x-csrf': '1', 'content-type': 'application/x-www-form-urlencoded' }, body: 'folder_id=1' })
  t.equal(form.status, 400)
  t.equal(form.json().error, 'invalid_request')
})

t.test('401 login_required without a session; 403 csrf_failed without the header', async (t) => {
  const stack = await startStack({ env: uploadEnv })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  const anonymous = await browser.post('/uploads/register', { folder_id: 0 })
  t.equal(anonymous.status, 401)
  t.same(anonymous.json(), { error: 'login_required', message: 'Please sign in.', login_url: '/auth/login' })
  const finish = await browser.post('/uploads/01ARZ3NDEKTSV4RRFFQ69G5FAV/finish')
  t.equal(finish.status, 401)
  await signIn(browser)
  const noCsrf = await browser.fetch('POST', '/uploads/register', { json: { folder_id: 0 } })
  t.equal(noCsrf.status, 403)
  t.equal(noCsrf.json().error, 'csrf_failed')
})

t.test('404 not_found: another session\'s ulid, an unknown one, path tricks, an expired one', async (t) => {
  const stack = await startStack({ env: uploadEnv, emulator: { uploadTtl: 2 } })
  t.teardown(stack.close)
  const alice = stack.bff.browser()
  await signIn(alice)
  const record = (await alice.post('/uploads/register', { folder_id: 0 })).json()
  const other = stack.bff.browser()
  await signIn(other)
  const foreign = await other.post(`/uploads/${String(record.ulid)}/finish`)
  t.equal(foreign.status, 404)
  t.equal(foreign.json().error, 'not_found')
  for (const path of ['01ARZ3NDEKTSV4RRFFQ69G5FAV', 'not-a-ulid', '..%2F..%2Fapi', '%00', 'x'.repeat(300)]) {
    const answer = await alice.post(`/uploads/${path}/finish`)
    t.ok(answer.status === 404 || answer.status === 400, `refused with 400 or 404: ${path.slice(0, 30)} (${answer.status})`)
    t.match(answer.json().error, /^(not_found|invalid_request)$/)
  }
  t.equal(stack.emulator.counters().finishes, 0, 'nothing reached the service')
  await sleep(2200)
  const expired = await alice.post(`/uploads/${String(record.ulid)}/finish`)
  t.equal(expired.status, 404, 'an expired registration cannot be finished')
})

t.test('413 payload_too_large for an oversized body', async (t) => {
  const stack = await startStack({ env: uploadEnv })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  await signIn(browser)
  const answer = await browser.post('/uploads/register', { folder_id: 0, title: 'x'.repeat(20_000) })
  t.equal(answer.status, 413)
  t.equal(answer.json().error, 'payload_too_large')
})

t.test('429 rate_limited per user, with Retry-After', async (t) => {
  const users = [...defaultUserInputs, { name: 'carol', scopes: ['basic', 'user.info', 'upload'] }]
  const stack = await startStack({ emulator: { users }, env: { ...uploadEnv, RATE_LIMIT_REGISTER_PER_MINUTE: '3' } })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  await signIn(browser)
  for (let i = 0; i < 3; i++) t.equal((await browser.post('/uploads/register', { folder_id: 0 })).status, 200)
  const limited = await browser.post('/uploads/register', { folder_id: 0 })
  t.equal(limited.status, 429)
  t.equal(limited.json().error, 'rate_limited')
  t.ok(Number(limited.headers['retry-after']) >= 1)
  const sameUser = stack.bff.browser()
  await signIn(sameUser)
  t.equal((await sameUser.post('/uploads/register', { folder_id: 0 })).status, 429, 'signing in again buys no new budget')
  const other = stack.bff.browser()
  await signIn(other, { user: 'carol' })
  t.equal((await other.post('/uploads/register', { folder_id: 0 })).status, 200, 'another user is not limited')
})

t.test('502 upstream_error: failures, nonsense and a forbidden upload host', async (t) => {
  const stack = await startStack({ env: uploadEnv })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  await signIn(browser)
  stack.emulator.injectFault({ endpoint: 'upload_id', failStatus: 500, failCount: 1 })
  const failed = await browser.post('/uploads/register', { folder_id: 0 })
  t.equal(failed.status, 502)
  t.equal(failed.json().error, 'upstream_error')
  t.equal(failed.json().upstream.status, 500)
  t.type(failed.json().upstream.error, 'string', 'the service\'s error key is passed on')

  stack.emulator.injectFault({ endpoint: 'upload_id', malformed: true, failCount: 1 })
  const nonsense = await browser.post('/uploads/register', { folder_id: 0 })
  t.equal(nonsense.status, 502)
  t.equal(nonsense.json().error, 'upstream_error')

  stack.emulator.injectFault({ endpoint: 'upload_id', drop: true, failCount: 1 })
  const dropped = await browser.post('/uploads/register', { folder_id: 0 })
  t.equal(dropped.status, 502)

  const record = (await browser.post('/uploads/register', { folder_id: 0 })).json()
  stack.emulator.injectFault({ endpoint: 'finish', failStatus: 503, failCount: 1 })
  const finish = await browser.post(record.finish_url)
  t.equal(finish.status, 502)
  t.equal((await browser.post(record.finish_url)).status, 200, 'the same finish works after recovery')
  t.equal((await browser.get('/auth/session')).json().authenticated, true, 'session kept throughout')
})

t.test('the service refusing a registration (a folder that is not there) is passed on with its status, as the relay passes it on', async (t) => {
  const stack = await startStack({ env: uploadEnv })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  await signIn(browser)
  const missing = await browser.post('/uploads/register', { folder_id: 987654 })
  t.equal(missing.status, 404, 'the service\'s 404, not a 502: the browser asked for a folder there is not')
  t.equal(missing.json().error, 'not_found')
  t.equal(missing.json().upstream.status, 404)
  stack.emulator.injectFault({ endpoint: 'upload_id', failStatus: 429, failCount: 1 })
  const slowDown = await browser.post('/uploads/register', { folder_id: 0 })
  t.equal(slowDown.status, 429, 'the service asking to slow down: passed on')
  t.equal(slowDown.json().error, 'rate_limited')
  t.equal((await browser.get('/auth/session')).json().authenticated, true, 'session kept throughout')
})

t.test('502 when url_upload_direct is on a host outside UPLOAD_ALLOWED_HOSTS', async (t) => {
  const stack = await startStack({ env: { ...uploadEnv, UPLOAD_ALLOWED_HOSTS: 'upload.media.example' } })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  await signIn(browser)
  const answer = await browser.post('/uploads/register', { folder_id: 0 })
  t.equal(answer.status, 502)
  t.equal(answer.json().error, 'upstream_error')
  t.match(answer.json().message, /UPLOAD_ALLOWED_HOSTS/)
  t.notMatch(answer.text, /sig=|url_upload_direct/, 'the refused URL is not handed out')
})

t.test('504 upstream_timeout when the service is too slow', async (t) => {
  const stack = await startStack({ env: { ...uploadEnv, UPSTREAM_TIMEOUT_MS: '500' } })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  await signIn(browser)
  stack.emulator.injectFault({ endpoint: 'upload_id', delayMs: 1000 })
  const answer = await browser.post('/uploads/register', { folder_id: 0 })
  t.equal(answer.status, 504)
  t.equal(answer.json().error, 'upstream_timeout')
  stack.emulator.clearFaults()
  t.equal((await browser.post('/uploads/register', { folder_id: 0 })).status, 200)
})

t.test('a title with a control character or a bidirectional control is a 400 naming title; nothing is registered', async (t) => {
  const stack = await startStack({ env: uploadEnv })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  await signIn(browser)
  for (const title of ['Holiday\u202Egpj.exe', 'Line\u0085break', 'Hidden\u2066text\u2069', 'Mark\u200E', 'Bell\u0007', 'C1\u009b31m']) {
    const answer = await browser.post('/uploads/register', { folder_id: 0, title })
    t.equal(answer.status, 400, JSON.stringify(title))
    t.match(answer.json(), { error: 'invalid_request', field: 'title', message: /title may not contain control characters or bidirectional/ }, JSON.stringify(title))
  }
  t.equal(stack.emulator.counters().registrations, 0, 'none reached the service')
  t.equal((await browser.post('/uploads/register', { folder_id: 0, title: 'Été 2026 — שלום' })).status, 200, 'other scripts are fine')
})
