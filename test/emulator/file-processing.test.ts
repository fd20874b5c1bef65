// After an upload the service transcodes the file: every stored file is `processing` first and
// `ready` processingMs later, and every answer that shows the file says which. The tests hold
// files in processing with a processing time of ten minutes and let them go by setting it to 0,
// so no check depends on how fast the machine is.
import t from 'tap'
import type { RunningEmulator } from '../../emulator/index.js'
import { apiCall, postFile, registerUpload, startTestEmulator, user } from '../helpers/emulator.js'
import { call, libraryTokens } from './library-client.js'
import { pollUntil } from './poll.js'

const tenMinutes = 600_000

async function fileStatus (emulator: RunningEmulator, token: string, fileId: number): Promise<string> {
  return (await call(emulator, `files/${fileId}`, { token })).body.status
}

async function untilReady (emulator: RunningEmulator, token: string, fileId: number): Promise<void> {
  await pollUntil(`file ${fileId} becomes ready`, async () => await fileStatus(emulator, token, fileId), (status) => status === 'ready')
}

t.test('a direct upload is processing in the file view, the listing and finish, then ready in all three', async (t) => {
  const emulator = await startTestEmulator(t, { processingMs: tenMinutes })
  const { alice } = await libraryTokens(emulator)
  const record = await registerUpload(emulator, { folder_id: '2' })
  const uploaded = await postFile(record.url_upload_direct, { content: 'clip', filename: 'clip.mp4', fields: { title: 'Clip' } })
  t.equal(uploaded.status, 200)
  t.equal(uploaded.body.status, 'success', 'the upload answer\'s status stays the outcome of the upload')
  const fileId = uploaded.body.file_id as number
  const finish = async (): Promise<any> => (await apiCall(record.api.finish, { method: 'DELETE', privateToken: user(emulator, 'alice').privateToken })).body

  const view = await call(emulator, `files/${fileId}`, { token: alice })
  t.match(view.body, { file_id: fileId, status: 'processing' })
  t.match((await call(emulator, 'folders/2/contents', { token: alice })).body.files, [{ file_id: fileId, status: 'processing' }])
  t.match((await finish()).files, [{ file_id: fileId, status: 'processing' }])
  t.match((await apiCall(`${emulator.baseUrl}/__emulator/files`)).body.files, [{ file_id: fileId, status: 'processing' }])

  emulator.configure({ processingMs: 0 })
  await untilReady(emulator, alice, fileId)
  t.match((await call(emulator, 'folders/2/contents', { token: alice })).body.files, [{ file_id: fileId, status: 'ready' }])
  t.match((await finish()).files, [{ file_id: fileId, status: 'ready' }])
  const revalidated = await call(emulator, `files/${fileId}`, { token: alice, headers: { 'if-none-match': view.headers.etag as string } })
  t.equal(revalidated.status, 200, 'becoming ready moves the library version on: the old ETag no longer matches')
  t.equal(revalidated.body.status, 'ready')
})

t.test('a single-call upload is processing, then ready', async (t) => {
  const emulator = await startTestEmulator(t, { processingMs: tenMinutes })
  const { alice } = await libraryTokens(emulator)
  const uploaded = await postFile(`${emulator.baseUrl}/api/upload/file`, { content: 'one call', filename: 'one.txt', headers: { authorization: `Private-Token ${user(emulator, 'alice').privateToken}` } })
  t.equal(uploaded.status, 200)
  const fileId = uploaded.body.file_id as number
  t.equal(await fileStatus(emulator, alice, fileId), 'processing')
  await apiCall(`${emulator.baseUrl}/__emulator/config`, { method: 'POST', json: { processingMs: 0 } })
  await untilReady(emulator, alice, fileId)
  t.pass('ready')
})

t.test('by default a file is ready about three seconds after its upload', async (t) => {
  const emulator = await startTestEmulator(t)
  const { alice } = await libraryTokens(emulator)
  t.equal((await apiCall(`${emulator.baseUrl}/__emulator/config`)).body.processingMs, 3000)
  const record = await registerUpload(emulator)
  const uploadedAt = Date.now()
  const fileId = (await postFile(record.url_upload_direct)).body.file_id as number
  await untilReady(emulator, alice, fileId)
  t.ok(Date.now() - uploadedAt >= 2900, 'not before its three seconds')
})

t.test('processingMs changed at run time counts from each upload, for files already processing too', async (t) => {
  const emulator = await startTestEmulator(t, { processingMs: tenMinutes })
  const { alice } = await libraryTokens(emulator)
  const upload = async (): Promise<number> => {
    const record = await registerUpload(emulator)
    return (await postFile(record.url_upload_direct)).body.file_id as number
  }
  const first = await upload()
  const longer = await apiCall(`${emulator.baseUrl}/__emulator/config`, { method: 'POST', json: { processingMs: 2 * tenMinutes } })
  t.match(longer.body, { processingMs: 2 * tenMinutes })
  const second = await upload()
  t.same([await fileStatus(emulator, alice, first), await fileStatus(emulator, alice, second)], ['processing', 'processing'])
  emulator.configure({ processingMs: 0 })
  await untilReady(emulator, alice, first)
  await untilReady(emulator, alice, second)
  t.pass('both released at once')
})

t.test('a file deleted while processing never comes back', async (t) => {
  const emulator = await startTestEmulator(t, { processingMs: tenMinutes })
  const { alice } = await libraryTokens(emulator)
  const record = await registerUpload(emulator)
  const deleted = (await postFile(record.url_upload_direct)).body.file_id as number
  const kept = (await postFile(record.url_upload_direct)).body.file_id as number
  t.equal((await call(emulator, `files/${deleted}`, { method: 'DELETE', token: alice })).status, 200)
  emulator.configure({ processingMs: 0 })
  await untilReady(emulator, alice, kept)
  t.equal((await call(emulator, `files/${deleted}`, { token: alice })).status, 404)
  t.same((await apiCall(`${emulator.baseUrl}/__emulator/files`)).body.files.map((file: { file_id: number }) => file.file_id), [kept])
})

t.test('processingMs is checked at start', async (t) => {
  for (const processingMs of [-1, 1.5, Number.NaN, 25 * 3600 * 1000]) {
    await t.rejects(startTestEmulator(t, { processingMs }), /processingMs/, String(processingMs))
  }
})
