// Authentication of /api calls and the read endpoints: user/info, folders, files.
import t from 'tap'
import { request } from 'undici'
import { multipart } from '../helpers/multipart.js'
import { apiCall, postFile, registerUpload, signIn, startTestEmulator, user } from '../helpers/emulator.js'

t.test('user/info answers to a bearer token and to the private token in both forms', async (t) => {
  const emulator = await startTestEmulator(t)
  const alice = user(emulator, 'alice')
  const tokens = await signIn(emulator, { scope: 'basic' })
  const expected = { user_id: 1, name: 'Alice Example', email: 'alice@example.test', scopes: ['basic', 'user.info', 'manage', 'upload', 'share'] }
  const bearer = await apiCall(`${emulator.baseUrl}/api/user/info`, { token: tokens.access_token })
  t.equal(bearer.status, 200)
  t.match(bearer.body, expected, 'the entitlements, whatever the token was granted')
  const header = await apiCall(`${emulator.baseUrl}/api/user/info`, { privateToken: alice.privateToken })
  t.match(header.body, expected)
  const lowerCase = await apiCall(`${emulator.baseUrl}/api/user/info`, { headers: { authorization: `bearer ${tokens.access_token}` } })
  t.equal(lowerCase.status, 200, 'the scheme is case-insensitive')
  const bob = await apiCall(`${emulator.baseUrl}/api/user/info`, { privateToken: user(emulator, 'bob').privateToken })
  t.match(bob.body, { user_id: 2, name: 'Bob Example', email: 'bob@example.test', scopes: ['basic', 'user.info'] })
  t.equal(emulator.counters().userInfo, 4)
})

t.test('a private_token form field authenticates', async (t) => {
  const emulator = await startTestEmulator(t)
  const alice = user(emulator, 'alice')
  const registered = await apiCall(`${emulator.baseUrl}/api/upload/id`, { method: 'POST', form: { private_token: alice.privateToken, folder_id: '2' } })
  t.equal(registered.status, 200)
  const form = new FormData()
  form.append('private_token', alice.privateToken)
  const answer = await request(`${emulator.baseUrl}/api/upload/id`, { method: 'POST', ...await multipart(form) })
  t.equal(answer.statusCode, 200)
  await answer.body.dump()
  const finish = await apiCall(registered.body.api.finish, { method: 'DELETE', form: { private_token: alice.privateToken } })
  t.equal(finish.status, 200)
})

t.test('missing, unknown, malformed and expired credentials are 401 invalid_token', async (t) => {
  const emulator = await startTestEmulator(t)
  const url = `${emulator.baseUrl}/api/user/info`
  const cases: Array<[string, Record<string, string>]> = [
    ['none', {}],
    ['unknown bearer', { authorization: 'Bearer nope' }],
    ['unknown private token', { authorization: 'Private-Token nope' }],
    ['other scheme', { authorization: 'Basic YTpi' }],
    ['no token', { authorization: 'Bearer' }]
  ]
  for (const [name, headers] of cases) {
    const answer = await apiCall(url, { headers })
    t.equal(answer.status, 401, name)
    t.match(answer.body, { error: 'invalid_token', error_description: String, user_message: String }, name)
    t.match(answer.headers['www-authenticate'], /^Bearer /, name)
  }
})

t.test('a missing scope is 403 insufficient_scope', async (t) => {
  const emulator = await startTestEmulator(t)
  const basicOnly = await signIn(emulator, { scope: 'basic user.info' })
  const register = await apiCall(`${emulator.baseUrl}/api/upload/id`, { method: 'POST', token: basicOnly.access_token })
  t.equal(register.status, 403)
  t.match(register.body, { error: 'insufficient_scope', error_description: /upload/, user_message: String })
  t.match(register.headers['www-authenticate'], /error="insufficient_scope", scope="upload"/)
  const bob = await apiCall(`${emulator.baseUrl}/api/upload/id`, { method: 'POST', privateToken: user(emulator, 'bob').privateToken })
  t.equal(bob.status, 403, 'a private token carries only its user\'s rights')
  const shareless = await signIn(emulator, { scope: 'upload' })
  const folders = await apiCall(`${emulator.baseUrl}/api/folders/0`, { token: shareless.access_token })
  t.equal(folders.status, 403, 'folders need basic')
})

t.test('folders and files list what was uploaded, per user (every user has the seeded folders)', async (t) => {
  const emulator = await startTestEmulator(t)
  const alice = user(emulator, 'alice')
  const registration = await registerUpload(emulator, { folder_id: '5' })
  const uploaded = await postFile(registration.url_upload_direct, { content: 'abc', filename: 'a.txt', fields: { title: 'A' } })
  await postFile(`${registration.url_upload_direct}&folder_id=0`, { content: 'home', filename: 'home.txt' })
  const auth = { privateToken: alice.privateToken }

  const home = await apiCall(`${emulator.baseUrl}/api/folders/0`, auth)
  t.match(home.body, { folder_id: 0, name: 'Home', parent_id: null, file_count: 1 })
  const homeContents = await apiCall(`${emulator.baseUrl}/api/folders/0/contents`, auth)
  t.match(homeContents.body, { folder_id: 0, files: [{ filename: 'home.txt', size: 4 }] })
  t.same(homeContents.body.folders.map((folder: { folder_id: number }) => folder.folder_id), [1, 2, 3, 4, 5, 8], 'the seeded folders of home')
  const five = await apiCall(`${emulator.baseUrl}/api/folders/5/contents`, auth)
  t.match(five.body, { folder_id: 5, files: [{ file_id: uploaded.body.file_id, title: 'A', filename: 'a.txt', size: 3, urls: { file: `${emulator.baseUrl}/media/${uploaded.body.file_id as number}/a.txt` } }] })
  t.equal((await apiCall(`${emulator.baseUrl}/api/folders/99`, auth)).status, 404)
  t.equal((await apiCall(`${emulator.baseUrl}/api/folders/abc`, auth)).status, 404)

  const file = await apiCall(`${emulator.baseUrl}/api/files/${uploaded.body.file_id as number}`, auth)
  t.match(file.body, { file_id: uploaded.body.file_id, folder_id: 5 })
  const share = await apiCall(uploaded.body.api.share, auth)
  t.equal(share.status, 200)
  t.match(share.body, { file_id: uploaded.body.file_id, url: String })

  const bob = { privateToken: user(emulator, 'bob').privateToken }
  t.same((await apiCall(`${emulator.baseUrl}/api/folders/5/contents`, bob)).body.files, [], 'bob\'s own folder 5 is not alice\'s')
  t.same((await apiCall(`${emulator.baseUrl}/api/folders/0/contents`, bob)).body.files, [])
  t.equal((await apiCall(`${emulator.baseUrl}/api/files/${uploaded.body.file_id as number}`, bob)).status, 404, 'not bob\'s file')
})
