// POST /api/upload/id in every body encoding, its answer and its validation; finish.
import t from 'tap'
import { request } from 'undici'
import { multipart } from '../helpers/multipart.js'
import { ulidPattern } from '../../emulator/ulid.js'
import { apiCall, postFile, registerUpload, startTestEmulator, user } from '../helpers/emulator.js'

t.test('the registration record points at the upload origin and the finish URL', async (t) => {
  const emulator = await startTestEmulator(t)
  const before = Math.floor(Date.now() / 1000)
  const record = await registerUpload(emulator, { folder_id: '8' })
  t.match(record.ulid, ulidPattern)
  t.equal(record.expires_in, 3600)
  t.ok(record.expires >= before + 3600 && record.expires <= before + 3602, 'expires is a Unix time in seconds')
  const url = new URL(record.url_upload_direct)
  t.equal(url.origin, emulator.uploadOrigin)
  t.not(emulator.uploadOrigin, emulator.apiOrigin)
  t.equal(url.pathname, `/upload/${record.ulid}`)
  t.equal(url.searchParams.get('expires'), String(record.expires))
  t.ok(url.searchParams.get('sig'), 'signed, with a query string already')
  t.same(record.api, { rel: 'upload', upload: record.url_upload_direct, finish: `${emulator.baseUrl}/api/upload/id/${record.ulid}` })
  t.equal(emulator.counters().registrations, 1)
})

t.test('the body may be multipart, url-encoded, JSON or empty', async (t) => {
  const emulator = await startTestEmulator(t)
  const alice = user(emulator, 'alice')
  const url = `${emulator.baseUrl}/api/upload/id`
  const auth = { authorization: `Private-Token ${alice.privateToken}` }
  const form = new FormData()
  form.append('folder_id', '3')
  form.append('max_files', '2')
  const encoded = await multipart(form)
  const answers = [
    await request(url, { method: 'POST', headers: { ...auth, ...encoded.headers }, body: encoded.body }),
    await request(url, { method: 'POST', headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' }, body: 'folder_id=3&file_extensions=jpg,png&autofinish=0' }),
    await request(url, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ folder_id: 3, file_extensions: ['jpg', '.PNG'], hide_response: true, no_transcode: 'true' }) }),
    await request(url, { method: 'POST', headers: auth })
  ]
  for (const [index, answer] of answers.entries()) {
    t.equal(answer.statusCode, 200, `encoding ${index}`)
    t.match(await answer.body.json(), { ulid: ulidPattern })
  }
})

t.test('bad options are 400 with the three error keys', async (t) => {
  const emulator = await startTestEmulator(t)
  const alice = user(emulator, 'alice')
  const cases: Array<[string, unknown]> = [
    ['negative folder', { folder_id: -1 }],
    ['text folder', { folder_id: 'abc' }],
    ['fractional folder', { folder_id: 1.5 }],
    ['zero max_files', { max_files: 0 }],
    ['text max_filesize', { max_filesize: 'big' }],
    ['bad extension', { file_extensions: 'jpg,../x' }],
    ['extension list of numbers', { file_extensions: [1, 2] }],
    ['bad boolean', { autofinish: 'maybe' }],
    ['object folder', { folder_id: { a: 1 } }]
  ]
  for (const [name, body] of cases) {
    const answer = await apiCall(`${emulator.baseUrl}/api/upload/id`, { method: 'POST', privateToken: alice.privateToken, json: body })
    t.equal(answer.status, 400, name)
    t.match(answer.body, { error: 'invalid_request', error_description: String, user_message: String }, name)
  }
  const twice = await request(`${emulator.baseUrl}/api/upload/id`, {
    method: 'POST', headers: { authorization: `Private-Token ${alice.privateToken}`, 'content-type': 'application/x-www-form-urlencoded' }, body: 'folder_id=1&folder_id=2'
  })
  t.equal(twice.statusCode, 400, 'a repeated folder_id')
  await twice.body.dump()
  t.equal(emulator.counters().registrations, 0)
})

t.test('a folder the user does not have is 404 folder_not_found', async (t) => {
  const emulator = await startTestEmulator(t)
  const alice = user(emulator, 'alice')
  for (const folderId of ['12', '99', '100']) {
    const answer = await apiCall(`${emulator.baseUrl}/api/upload/id`, { method: 'POST', privateToken: alice.privateToken, form: { folder_id: folderId } })
    t.equal(answer.status, 404, folderId)
    t.match(answer.body, { error: 'folder_not_found', error_description: String, user_message: String }, folderId)
  }
  t.equal(emulator.counters().registrations, 0)
  const created = await apiCall(`${emulator.baseUrl}/api/folders/0`, { method: 'POST', privateToken: alice.privateToken, form: { name: 'New' } })
  t.equal((await apiCall(`${emulator.baseUrl}/api/upload/id`, { method: 'POST', privateToken: alice.privateToken, json: { folder_id: created.body.folder_id } })).status, 200, 'a created folder takes uploads')
})

t.test('finish is idempotent, lists the files, and is private to the user', async (t) => {
  const emulator = await startTestEmulator(t)
  const alice = user(emulator, 'alice')
  const record = await registerUpload(emulator, { folder_id: '4' })
  const uploaded = await postFile(record.url_upload_direct, { content: 'x'.repeat(10), filename: 'ten.bin', fields: { title: 'Ten' } })
  t.equal(uploaded.status, 200)

  const other = await apiCall(record.api.finish, { method: 'DELETE', privateToken: user(emulator, 'bob').privateToken })
  t.equal(other.status, 403, 'bob may not upload at all')

  const first = await apiCall(record.api.finish, { method: 'DELETE', privateToken: alice.privateToken })
  t.equal(first.status, 200)
  t.match(first.body, { status: 'success', files: [{ file_id: uploaded.body.file_id, folder_id: 4, title: 'Ten', filename: 'ten.bin', size: 10, urls: { file: String } }] })
  const second = await apiCall(record.api.finish, { method: 'DELETE', privateToken: alice.privateToken })
  t.equal(second.status, 200)
  t.same(second.body, first.body, 'the same answer again')
  t.equal(emulator.counters().finishes, 2)

  const unknown = await apiCall(`${emulator.baseUrl}/api/upload/id/01ARZ3NDEKTSV4RRFFQ69G5FAV`, { method: 'DELETE', privateToken: alice.privateToken })
  t.equal(unknown.status, 404)
  const garbage = await apiCall(`${emulator.baseUrl}/api/upload/id/not-a-ulid`, { method: 'DELETE', privateToken: alice.privateToken })
  t.equal(garbage.status, 404)
  const anonymous = await apiCall(record.api.finish, { method: 'DELETE' })
  t.equal(anonymous.status, 401)
})

t.test('another user\'s ulid is 404', async (t) => {
  const emulator = await startTestEmulator(t, {
    users: [{ name: 'alice', scopes: ['basic', 'upload'] }, { name: 'carol', scopes: ['basic', 'upload'] }]
  })
  const record = await registerUpload(emulator)
  const carol = await apiCall(record.api.finish, { method: 'DELETE', privateToken: user(emulator, 'carol').privateToken })
  t.equal(carol.status, 404)
  t.match(carol.body, { error: 'not_found', error_description: String, user_message: String })
  const alice = await apiCall(record.api.finish, { method: 'DELETE', privateToken: user(emulator, 'alice').privateToken })
  t.equal(alice.status, 200, 'and the owner can still finish')
})
