// The folder calls of the library API: the seeded tree, contents and its filters, create,
// rename, delete, and who may do what.
import t from 'tap'
import { errorShape, postFile, registerUpload, startTestEmulator, user } from '../helpers/emulator.js'
import { call, libraryTokens } from './library-client.js'

t.test('every user starts with the seeded tree; views carry counts and absolute API links', async (t) => {
  const emulator = await startTestEmulator(t)
  const { alice, bob } = await libraryTokens(emulator)
  const home = await call(emulator, 'folders/0', { token: alice })
  t.equal(home.status, 200)
  t.same(home.body, {
    folder_id: 0,
    name: 'Home',
    parent_id: null,
    created: home.body.created,
    folder_count: 6,
    file_count: 0,
    api: { self: `${emulator.baseUrl}/api/folders/0`, contents: `${emulator.baseUrl}/api/folders/0/contents`, share: `${emulator.baseUrl}/api/folders/0/share` }
  })
  t.ok(Number.isInteger(home.body.created) && home.body.created < Date.now() / 1000, 'created is Unix seconds in the past')
  const contents = await call(emulator, 'folders/0/contents', { token: alice })
  t.same(contents.body.folders.map((folder: { folder_id: number, name: string }) => [folder.folder_id, folder.name]),
    [[1, 'Lectures'], [2, 'Events'], [3, 'Campus tours'], [4, 'Interviews'], [5, 'Archive'], [8, 'Drafts']])
  t.same(contents.body.files, [])
  const archive = await call(emulator, 'folders/5/contents', { token: bob })
  t.match(archive.body, { folder_id: 5, folders: [{ folder_id: 6, name: '2024', parent_id: 5 }, { folder_id: 7, name: '2025', parent_id: 5 }], files: [] }, 'bob has his own tree')
  t.match((await call(emulator, 'folders/5', { token: bob })).body, { folder_id: 5, name: 'Archive', parent_id: 0, folder_count: 2, file_count: 0 })
})

t.test('contents lists files with their views, and the folders and files switches filter', async (t) => {
  const emulator = await startTestEmulator(t)
  const { alice } = await libraryTokens(emulator)
  const record = await registerUpload(emulator, { folder_id: '5' })
  const uploaded = await postFile(record.url_upload_direct, { content: 'abc', filename: 'a.txt', fields: { title: 'A' } })
  const fileId = uploaded.body.file_id as number
  const full = await call(emulator, 'folders/5/contents', { token: alice })
  t.same(full.body.files, [{
    file_id: fileId,
    folder_id: 5,
    title: 'A',
    filename: 'a.txt',
    size: 3,
    mime_type: full.body.files[0].mime_type,
    created: full.body.files[0].created,
    status: 'processing',
    urls: { file: `${emulator.baseUrl}/media/${fileId}/a.txt` },
    api: { self: `${emulator.baseUrl}/api/files/${fileId}`, share: `${emulator.baseUrl}/api/files/${fileId}/share` }
  }])
  t.equal(full.body.folders.length, 2)
  t.match((await call(emulator, 'folders/5', { token: alice })).body, { file_count: 1, folder_count: 2 })

  const cases: Array<[string, number, number]> = [
    ['folders=0', 0, 1], ['folders=false', 0, 1], ['files=0', 2, 0], ['files=false', 2, 0],
    ['folders=1&files=true', 2, 1], ['folders=0&files=0', 0, 0], ['unknown=x&files=1', 2, 1]
  ]
  for (const [query, folders, files] of cases) {
    const answer = await call(emulator, `folders/5/contents?${query}`, { token: alice })
    t.equal(answer.status, 200, query)
    t.same([answer.body.folders.length, answer.body.files.length], [folders, files], query)
  }
  for (const query of ['folders=yes', 'files=', 'files=2', 'folders=0&folders=1', 'files=TRUE']) {
    const answer = await call(emulator, `folders/5/contents?${query}`, { token: alice })
    t.equal(answer.status, 400, query)
    t.match(answer.body, { ...errorShape, error: 'invalid_request' }, query)
  }
})

t.test('create: 201 with the view, names trimmed and checked, siblings unique', async (t) => {
  const emulator = await startTestEmulator(t)
  const { alice } = await libraryTokens(emulator)
  const created = await call(emulator, 'folders/5', { method: 'POST', token: alice, form: { name: '  Reports  ' } })
  t.equal(created.status, 201)
  t.match(created.body, { folder_id: Number, name: 'Reports', parent_id: 5, folder_count: 0, file_count: 0, api: { self: `${emulator.baseUrl}/api/folders/${created.body.folder_id as number}` } })
  t.ok(created.body.folder_id >= 100, 'created folders are numbered from 100')
  t.ok(Math.abs(created.body.created - Date.now() / 1000) < 60, 'created now')
  t.equal((await call(emulator, 'folders/5', { token: alice })).body.folder_count, 3)
  t.same((await call(emulator, `folders/${created.body.folder_id as number}`, { token: alice })).body, created.body, 'readable at once')

  const json = await call(emulator, `folders/${created.body.folder_id as number}`, { method: 'POST', token: alice, json: { name: 'Q1' } })
  t.equal(json.status, 201, 'a JSON body')
  const multipart = new FormData()
  multipart.append('name', 'Q2')
  const viaMultipart = await fetch(`${emulator.baseUrl}/api/folders/${created.body.folder_id as number}`, { method: 'POST', headers: { authorization: `Bearer ${alice}` }, body: multipart })
  t.equal(viaMultipart.status, 201, 'a multipart body')
  t.not(json.body.folder_id, (await viaMultipart.json() as { folder_id: number }).folder_id, 'fresh ids')

  for (const name of ['Reports', 'reports', ' REPORTS ', '2024']) {
    const answer = await call(emulator, 'folders/5', { method: 'POST', token: alice, form: { name } })
    t.equal(answer.status, 409, `"${name}" exists`)
    t.match(answer.body, { ...errorShape, error: 'folder_exists' })
  }
  t.equal((await call(emulator, 'folders/0', { method: 'POST', token: alice, form: { name: 'Reports' } })).status, 201, 'the same name elsewhere is fine')
  t.equal((await call(emulator, 'folders/0', { method: 'POST', token: alice, form: { name: 'x'.repeat(255) } })).status, 201, '255 characters')

  const bad: Array<[string, unknown]> = [
    ['empty', { name: '' }], ['blank', { name: '   ' }], ['a slash', { name: 'a/b' }], ['a control character', { name: 'a\u0007b' }],
    ['a newline', { name: 'a\nb' }], ['256 characters', { name: 'x'.repeat(256) }], ['missing', {}], ['a number', { name: 5 }], ['repeated', { name: ['a', 'b'] }]
  ]
  for (const [what, body] of bad) {
    const answer = await call(emulator, 'folders/0', { method: 'POST', token: alice, json: body })
    t.equal(answer.status, 400, what)
    t.match(answer.body, { ...errorShape, error: 'invalid_request' }, what)
  }
  const orphan = await call(emulator, 'folders/99', { method: 'POST', token: alice, form: { name: 'Orphan' } })
  t.equal(orphan.status, 404, 'an unknown parent')
  t.match(orphan.body, { ...errorShape, error: 'folder_not_found' })
})

t.test('rename: 200 with the view; a sibling\'s name is 409; home cannot be renamed', async (t) => {
  const emulator = await startTestEmulator(t)
  const { alice } = await libraryTokens(emulator)
  const renamed = await call(emulator, 'folders/6', { method: 'PUT', token: alice, form: { name: ' Year 2024 ' } })
  t.equal(renamed.status, 200)
  t.match(renamed.body, { folder_id: 6, name: 'Year 2024', parent_id: 5 })
  t.equal((await call(emulator, 'folders/6', { token: alice })).body.name, 'Year 2024')
  t.equal((await call(emulator, 'folders/6', { method: 'PUT', token: alice, json: { name: 'YEAR 2024' } })).status, 200, 'its own name in other case')
  const clash = await call(emulator, 'folders/6', { method: 'PUT', token: alice, form: { name: '2025' } })
  t.equal(clash.status, 409)
  t.equal(clash.body.error, 'folder_exists')
  t.equal((await call(emulator, 'folders/1', { method: 'PUT', token: alice, form: { name: '2025' } })).status, 200, 'not a sibling of 7')
  const home = await call(emulator, 'folders/0', { method: 'PUT', token: alice, form: { name: 'Mine' } })
  t.equal(home.status, 400)
  t.match(home.body, errorShape)
  t.equal((await call(emulator, 'folders/6', { method: 'PUT', token: alice, form: { name: 'a/b' } })).status, 400)
  t.equal((await call(emulator, 'folders/99', { method: 'PUT', token: alice, form: { name: 'x' } })).status, 404)
})

t.test('delete: only empty folders, never home; uploads into a deleted folder are 404', async (t) => {
  const emulator = await startTestEmulator(t)
  const { alice } = await libraryTokens(emulator)
  const withChildren = await call(emulator, 'folders/5', { method: 'DELETE', token: alice })
  t.equal(withChildren.status, 409)
  t.match(withChildren.body, { ...errorShape, error: 'folder_not_empty' })
  const record = await registerUpload(emulator, { folder_id: '8' })
  t.equal((await postFile(record.url_upload_direct)).status, 200)
  t.equal((await call(emulator, 'folders/8', { method: 'DELETE', token: alice })).body.error, 'folder_not_empty', 'a folder with a file')
  t.equal((await call(emulator, 'folders/0', { method: 'DELETE', token: alice })).status, 400, 'home')

  const pending = await registerUpload(emulator, { folder_id: '4' })
  const deleted = await call(emulator, 'folders/4', { method: 'DELETE', token: alice })
  t.equal(deleted.status, 200)
  t.same(deleted.body, { status: 'success' })
  t.equal((await call(emulator, 'folders/4', { token: alice })).status, 404, 'gone')
  t.equal((await call(emulator, 'folders/4', { method: 'DELETE', token: alice })).status, 404, 'deleting again is 404')
  t.equal((await call(emulator, 'folders/0', { token: alice })).body.folder_count, 5)
  const registration = await call(emulator, 'upload/id', { method: 'POST', token: alice, form: { folder_id: '4' } })
  t.equal(registration.status, 404)
  t.equal(registration.body.error, 'folder_not_found')
  const late = await postFile(pending.url_upload_direct)
  t.equal(late.status, 404, 'a registration made before the delete')
  t.equal(late.body.error, 'folder_not_found')
  const single = await postFile(`${emulator.baseUrl}/api/upload/file`, { fields: { folder_id: '4', private_token: user(emulator, 'alice').privateToken } })
  t.equal(single.status, 404, 'the single-call upload')
  t.equal(single.body.error, 'folder_not_found')
  const formFolder = await postFile(record.url_upload_direct, { fields: { folder_id: '4' } })
  t.equal(formFolder.status, 404, 'a folder_id form field')
  t.equal(emulator.counters().uploads, 1)
})

t.test('authentication first, then scope, then the id: 401, 403, 404', async (t) => {
  const emulator = await startTestEmulator(t)
  const { alice, aliceBasic, bob } = await libraryTokens(emulator)
  const mine = (await call(emulator, 'folders/0', { method: 'POST', token: alice, form: { name: 'Private' } })).body.folder_id as number
  t.equal((await call(emulator, `folders/${mine}`, { token: bob })).status, 404, 'another user\'s folder')
  t.equal((await call(emulator, `folders/${mine}/contents`, { token: bob })).status, 404)
  for (const id of ['abc', '-1', '1.5', '0x1', '1234567890123456', '99']) {
    const answer = await call(emulator, `folders/${id}`, { token: alice })
    t.equal(answer.status, 404, id)
    t.match(answer.body, errorShape, id)
  }
  const unauthenticated = await call(emulator, 'folders/abc')
  t.equal(unauthenticated.status, 401, 'a malformed id is judged only after authentication')
  t.match(unauthenticated.body, { ...errorShape, error: 'invalid_token' })
  t.equal((await call(emulator, 'folders/0', { token: 'forged' })).status, 401)

  const writes: Array<[string, 'POST' | 'PUT' | 'DELETE']> = [['folders/0', 'POST'], ['folders/1', 'PUT'], ['folders/8', 'DELETE']]
  for (const token of [bob, aliceBasic]) {
    for (const [path, method] of writes) {
      const answer = await call(emulator, path, { method, token, form: { name: 'X' } })
      t.equal(answer.status, 403, `${method} ${path}`)
      t.match(answer.body, { ...errorShape, error: 'insufficient_scope', error_description: /manage/ })
      t.match(answer.headers['www-authenticate'], /scope="manage"/)
    }
  }
  t.equal((await call(emulator, 'folders/0', { token: aliceBasic })).status, 200, 'basic reads')
  const bobPrivate = await call(emulator, 'folders/0', { headers: { authorization: `Private-Token ${user(emulator, 'bob').privateToken}` } })
  t.equal(bobPrivate.status, 200, 'a private token reads with its user\'s rights')
  t.equal((await call(emulator, 'folders/0', { method: 'PATCH', token: alice })).status, 405)
})
