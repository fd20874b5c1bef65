// Unit tests of src/media/read-finish-result.ts: the finish answer goes to the browser, so only
// documented fields pass, as plain values, and links only on the tenant's origin.
import t from 'tap'
import { readFinishResult } from '../../src/media/read-finish-result.js'
import { UpstreamError } from '../../src/media/upstream-error.js'

const ORIGIN = 'https://tenant.example'

t.test('documented fields pass; everything else is dropped', async (t) => {
  const result = readFinishResult({
    status: 'success',
    secret: 'x',
    files: [
      { file_id: 5, folder_id: '7', title: 'Holiday', filename: 'a.jpg', size: 10, urls: { file: `${ORIGIN}/api/files/5` }, owner: { email: 'x' } },
      { file_id: -1, folder_id: 'seven', title: 't'.repeat(2000), size: 1.5, urls: { file: 'https://evil.example/f' } },
      'nonsense',
      null
    ]
  }, ORIGIN)
  t.same(result, {
    status: 'success',
    files: [
      { file_id: 5, folder_id: '7', title: 'Holiday', filename: 'a.jpg', size: 10, urls: { file: `${ORIGIN}/api/files/5` } },
      {},
      {},
      {}
    ]
  })
})

t.test('no status, or not an object: the upstream\'s fault', async (t) => {
  for (const body of [undefined, null, 'ok', [], { files: [] }, { status: 7 }, { status: 's'.repeat(100) }]) {
    t.throws(() => readFinishResult(body, ORIGIN), UpstreamError, JSON.stringify(body))
  }
  t.same(readFinishResult({ status: 'success', files: 'many' }, ORIGIN), { status: 'success', files: [] }, 'files that are not a list are none')
})

t.test('titles and file names reach the browser without control or bidirectional characters', async (t) => {
  const result = readFinishResult({ status: 'success', files: [{ file_id: 1, title: 'Open\r\nday\u202E', filename: 'clip\u202Egpj.exe' }] }, ORIGIN)
  t.same(result.files[0], { file_id: 1, title: 'Open day', filename: 'clipgpj.exe' })
})
