// The file calls of the library API: read, retitle, delete (from disk too), and who may.
import { stat } from 'node:fs/promises'
import t from 'tap'
import type { RunningEmulator } from '../../emulator/index.js'
import { apiCall, errorShape, postFile, registerUpload, startTestEmulator, user } from '../helpers/emulator.js'
import { call, libraryTokens } from './library-client.js'

async function uploadOne (emulator: RunningEmulator, folderId = '1', title = 'Lecture 1'): Promise<{ fileId: number, finish: string }> {
  const record = await registerUpload(emulator, { folder_id: folderId })
  const uploaded = await postFile(record.url_upload_direct, { content: 'lecture', filename: 'lecture.mp4', fields: { title } })
  return { fileId: uploaded.body.file_id as number, finish: record.api.finish }
}

async function storedPath (emulator: RunningEmulator, fileId: number): Promise<string> {
  const files = (await apiCall(`${emulator.baseUrl}/__emulator/files`)).body.files as Array<{ file_id: number, path: string }>
  const file = files.find((candidate) => candidate.file_id === fileId)
  if (file === undefined) throw new Error(`file ${fileId} is not stored`)
  return file.path
}

t.test('read: the upload entry plus its API links', async (t) => {
  const emulator = await startTestEmulator(t)
  const { alice, bob } = await libraryTokens(emulator)
  const { fileId } = await uploadOne(emulator)
  const answer = await call(emulator, `files/${fileId}`, { token: alice })
  t.equal(answer.status, 200)
  t.same(answer.body, {
    file_id: fileId,
    folder_id: 1,
    title: 'Lecture 1',
    filename: 'lecture.mp4',
    size: 7,
    mime_type: answer.body.mime_type,
    created: answer.body.created,
    status: 'processing',
    urls: { file: `${emulator.baseUrl}/media/${fileId}/lecture.mp4` },
    api: { self: `${emulator.baseUrl}/api/files/${fileId}`, share: `${emulator.baseUrl}/api/files/${fileId}/share` }
  })
  const foreign = await call(emulator, `files/${fileId}`, { token: bob })
  t.equal(foreign.status, 404, 'another user\'s file')
  t.match(foreign.body, { ...errorShape, error: 'file_not_found' })
  for (const id of ['1', '999999', 'abc', '1e3', '1234567890123456']) t.equal((await call(emulator, `files/${id}`, { token: alice })).status, 404, id)
  t.equal((await call(emulator, 'files/abc')).status, 401, 'authentication before the id')
})

t.test('retitle: 200 with the view, the title trimmed and 1 to 255 characters', async (t) => {
  const emulator = await startTestEmulator(t)
  const { alice, aliceBasic, bob } = await libraryTokens(emulator)
  const { fileId } = await uploadOne(emulator)
  const changed = await call(emulator, `files/${fileId}`, { method: 'PUT', token: alice, form: { title: '  Lecture one  ' } })
  t.equal(changed.status, 200)
  t.match(changed.body, { file_id: fileId, title: 'Lecture one', api: { self: String } })
  t.equal((await call(emulator, `files/${fileId}`, { token: alice })).body.title, 'Lecture one')
  t.equal((await call(emulator, `files/${fileId}`, { method: 'PUT', token: alice, json: { title: 't'.repeat(255) } })).status, 200, '255 characters')
  for (const body of [{ title: '' }, { title: '  ' }, { title: 't'.repeat(256) }, {}, { title: 7 }]) {
    const answer = await call(emulator, `files/${fileId}`, { method: 'PUT', token: alice, json: body })
    t.equal(answer.status, 400, JSON.stringify(body).slice(0, 40))
    t.match(answer.body, errorShape)
  }
  for (const token of [aliceBasic, bob]) {
    const answer = await call(emulator, `files/${fileId}`, { method: 'PUT', token, form: { title: 'x' } })
    t.equal(answer.status, 403)
    t.equal(answer.body.error, 'insufficient_scope')
  }
  t.equal((await call(emulator, 'files/999999', { method: 'PUT', token: alice, form: { title: 'x' } })).status, 404)
})

t.test('delete: 200, the file leaves the listing, the counts, finish and the disk', async (t) => {
  const emulator = await startTestEmulator(t)
  const { alice, aliceBasic } = await libraryTokens(emulator)
  const { fileId, finish } = await uploadOne(emulator, '3')
  const kept = await uploadOne(emulator, '3', 'Kept')
  const path = await storedPath(emulator, fileId)
  t.ok((await stat(path)).isFile())
  t.equal((await call(emulator, `files/${fileId}`, { method: 'DELETE', token: aliceBasic })).status, 403, 'needs manage')

  const deleted = await call(emulator, `files/${fileId}`, { method: 'DELETE', token: alice })
  t.equal(deleted.status, 200)
  t.same(deleted.body, { status: 'success' })
  await t.rejects(stat(path), { code: 'ENOENT' }, 'removed from disk')
  t.equal((await call(emulator, `files/${fileId}`, { token: alice })).status, 404)
  t.equal((await call(emulator, `files/${fileId}`, { method: 'DELETE', token: alice })).status, 404, 'deleting again is 404')
  const contents = await call(emulator, 'folders/3/contents', { token: alice })
  t.same(contents.body.files.map((file: { file_id: number }) => file.file_id), [kept.fileId])
  t.equal((await call(emulator, 'folders/3', { token: alice })).body.file_count, 1)
  const finished = await apiCall(finish, { method: 'DELETE', privateToken: user(emulator, 'alice').privateToken })
  t.same(finished.body.files, [], 'finish no longer lists it')
  t.equal((await call(emulator, `files/${kept.fileId}`, { method: 'DELETE', token: alice })).status, 200)
  t.equal((await call(emulator, 'folders/3', { method: 'DELETE', token: alice })).status, 200, 'the emptied folder can go')
})
