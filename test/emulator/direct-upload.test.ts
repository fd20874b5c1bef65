// POST {url_upload_direct} on the upload origin: signature, expiry, limits, CORS, concurrency,
// and the single-call upload that shares its streaming.
import { createHash, randomBytes } from 'node:crypto'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import t from 'tap'
import { request } from 'undici'
import { multipart } from '../helpers/multipart.js'
import { apiCall, postFile, registerUpload, signIn, startTestEmulator, user } from '../helpers/emulator.js'

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex')

async function incomingFiles (dataDir: string): Promise<string[]> {
  return await readdir(join(dataDir, 'incoming'))
}

t.test('a file posted to the signed URL is stored and recorded; Authorization is ignored', async (t) => {
  const emulator = await startTestEmulator(t)
  const record = await registerUpload(emulator, { folder_id: '8' })
  const content = randomBytes(4096)
  const answer = await postFile(record.url_upload_direct, { content, filename: 'photo.jpg', fields: { title: 'Holiday' }, headers: { authorization: 'Bearer whatever' } })
  t.equal(answer.status, 200)
  t.match(answer.body, { status: 'success', file_id: Number, title: 'Holiday', api: { share: `${emulator.baseUrl}/api/files/${answer.body.file_id as number}/share` } })
  const files = await apiCall(`${emulator.baseUrl}/__emulator/files`)
  t.match(files.body.files, [{ file_id: answer.body.file_id, ulid: record.ulid, name: 'photo.jpg', folder_id: 8, title: 'Holiday', size: 4096, sha256: sha256(content) }])
  t.equal(emulator.counters().uploads, 1)
})

t.test('hide_response leaves out the file id and links', async (t) => {
  const emulator = await startTestEmulator(t)
  const record = await registerUpload(emulator, { hide_response: '1' })
  const answer = await postFile(record.url_upload_direct, { filename: 'a.txt' })
  t.equal(answer.status, 200)
  t.same(answer.body, { status: 'success', title: 'a' })
})

t.test('folder_id comes from the form, else the query string, else the registration', async (t) => {
  const emulator = await startTestEmulator(t)
  const record = await registerUpload(emulator, { folder_id: '1' })
  await postFile(`${record.url_upload_direct}&folder_id=2`, { fields: { folder_id: '3' }, filename: 'form.txt' })
  await postFile(`${record.url_upload_direct}&folder_id=2`, { filename: 'query.txt' })
  await postFile(record.url_upload_direct, { filename: 'registration.txt' })
  const bad = await postFile(record.url_upload_direct, { fields: { folder_id: 'x' } })
  t.equal(bad.status, 400)
  const files = (await apiCall(`${emulator.baseUrl}/__emulator/files`)).body.files as Array<{ name: string, folder_id: number }>
  t.same(files.map((file) => [file.name, file.folder_id]), [['form.txt', 3], ['query.txt', 2], ['registration.txt', 1]])
  t.same(await incomingFiles(emulator.dataDir), [], 'the refused file was deleted')
})

t.test('CORS: preflights are answered and answers carry the allowed origin', async (t) => {
  const open = await startTestEmulator(t)
  const record = await registerUpload(open)
  const preflight = await request(record.url_upload_direct, {
    method: 'OPTIONS',
    headers: { origin: 'https://www.example.test', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' }
  })
  await preflight.body.dump()
  t.equal(preflight.statusCode, 204)
  t.equal(preflight.headers['access-control-allow-origin'], 'https://www.example.test')
  t.match(preflight.headers['access-control-allow-methods'], /POST/)
  t.match(preflight.headers['access-control-allow-headers'], /authorization/)
  t.match(preflight.headers['access-control-allow-headers'], /content-type/)
  t.ok(Number(preflight.headers['access-control-max-age']) > 0)
  const posted = await postFile(record.url_upload_direct, { headers: { origin: 'https://www.example.test' } })
  t.equal(posted.status, 200)
  t.equal(posted.headers['access-control-allow-origin'], 'https://www.example.test')
  const failed = await postFile(`${record.url_upload_direct}x`, { headers: { origin: 'https://www.example.test' } })
  t.equal(failed.status, 403)
  t.equal(failed.headers['access-control-allow-origin'], 'https://www.example.test', 'errors are readable too')

  const strict = await startTestEmulator(t, { corsOrigins: ['https://www.example.test'] })
  const strictRecord = await registerUpload(strict)
  const foreign = await request(strictRecord.url_upload_direct, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } })
  await foreign.body.dump()
  t.equal(foreign.headers['access-control-allow-origin'], undefined, 'a foreign origin is not allowed')
  const foreignPost = await postFile(strictRecord.url_upload_direct, { headers: { origin: 'https://evil.example' } })
  t.equal(foreignPost.headers['access-control-allow-origin'], undefined)
  const allowed = await postFile(strictRecord.url_upload_direct, { headers: { origin: 'https://www.example.test' } })
  t.equal(allowed.headers['access-control-allow-origin'], 'https://www.example.test')
})

t.test('a tampered URL is 403', async (t) => {
  const emulator = await startTestEmulator(t)
  const record = await registerUpload(emulator)
  const other = await registerUpload(emulator)
  const url = new URL(record.url_upload_direct)
  const variants: Array<[string, string]> = []
  const withParam = (name: string, value: string | null): string => {
    const copy = new URL(url)
    if (value === null) copy.searchParams.delete(name)
    else copy.searchParams.set(name, value)
    return copy.toString()
  }
  variants.push(['changed signature', withParam('sig', `${url.searchParams.get('sig') ?? ''}A`)])
  variants.push(['later expiry', withParam('expires', String(record.expires + 3600))])
  variants.push(['no signature', withParam('sig', null)])
  variants.push(['no expiry', withParam('expires', null)])
  variants.push(['other ulid', url.toString().replace(record.ulid, other.ulid)])
  for (const [name, target] of variants) {
    const answer = await postFile(target)
    t.equal(answer.status, 403, name)
    t.match(answer.body, { error: 'invalid_signature', error_description: String, user_message: String }, name)
  }
  t.equal(emulator.counters().uploads, 0)
})

t.test('an expired URL is 410', async (t) => {
  const emulator = await startTestEmulator(t, { uploadTtl: 0.3 })
  const record = await registerUpload(emulator)
  t.equal((await postFile(record.url_upload_direct)).status, 200, 'fine before it expires')
  await new Promise((resolve) => setTimeout(resolve, 350))
  const answer = await postFile(record.url_upload_direct)
  t.equal(answer.status, 410)
  t.match(answer.body, { error: 'upload_expired', error_description: String, user_message: String })
  const finish = await apiCall(record.api.finish, { method: 'DELETE', privateToken: user(emulator, 'alice').privateToken })
  t.equal(finish.body.files.length, 1, 'an expired upload can still be finished')
})

t.test('a finished upload is 410', async (t) => {
  const emulator = await startTestEmulator(t)
  const record = await registerUpload(emulator)
  await apiCall(record.api.finish, { method: 'DELETE', privateToken: user(emulator, 'alice').privateToken })
  const answer = await postFile(record.url_upload_direct)
  t.equal(answer.status, 410)
  t.equal(answer.body.error, 'upload_finished')
})

t.test('max_filesize: a larger file is 413 and leaves nothing behind', async (t) => {
  const emulator = await startTestEmulator(t)
  const record = await registerUpload(emulator, { max_filesize: '10' })
  t.equal((await postFile(record.url_upload_direct, { content: '0123456789' })).status, 200, 'exactly the limit')
  const small = await postFile(record.url_upload_direct, { content: '0123456789A' })
  t.equal(small.status, 413)
  t.match(small.body, { error: 'file_too_large', error_description: String, user_message: String })
  const big = await registerUpload(emulator, { max_filesize: String(1024 * 1024) })
  const answer = await postFile(big.url_upload_direct, { content: randomBytes(3 * 1024 * 1024) })
  t.equal(answer.status, 413, 'also when the limit is crossed in mid-stream')
  t.same(await incomingFiles(emulator.dataDir), [])
  t.equal(emulator.counters().uploads, 1)
})

t.test('max_files: the file beyond the count is 413', async (t) => {
  const emulator = await startTestEmulator(t)
  const record = await registerUpload(emulator, { max_files: '2' })
  t.equal((await postFile(record.url_upload_direct)).status, 200)
  t.equal((await postFile(record.url_upload_direct)).status, 200)
  const third = await postFile(record.url_upload_direct)
  t.equal(third.status, 413)
  t.equal(third.body.error, 'too_many_files')
})

t.test('max_size: files beyond the total are 413', async (t) => {
  const emulator = await startTestEmulator(t)
  const record = await registerUpload(emulator, { max_size: '20' })
  t.equal((await postFile(record.url_upload_direct, { content: 'x'.repeat(15) })).status, 200)
  const over = await postFile(record.url_upload_direct, { content: 'x'.repeat(10) })
  t.equal(over.status, 413)
  t.equal(over.body.error, 'upload_too_large')
  t.equal((await postFile(record.url_upload_direct, { content: 'x'.repeat(5) })).status, 200, 'what fits still fits')
  t.same(await incomingFiles(emulator.dataDir), [])
})

t.test('file_extensions: other types are 415', async (t) => {
  const emulator = await startTestEmulator(t)
  const record = await registerUpload(emulator, { file_extensions: 'jpg,.png' })
  t.equal((await postFile(record.url_upload_direct, { filename: 'a.JPG' })).status, 200)
  t.equal((await postFile(record.url_upload_direct, { filename: 'b.png' })).status, 200)
  const text = await postFile(record.url_upload_direct, { filename: 'c.txt' })
  t.equal(text.status, 415)
  t.match(text.body, { error: 'file_extension_not_allowed', error_description: /jpg, png/, user_message: String })
  t.equal((await postFile(record.url_upload_direct, { filename: 'noextension' })).status, 415)
})

t.test('malformed uploads are clear 4xx answers', async (t) => {
  const emulator = await startTestEmulator(t)
  const record = await registerUpload(emulator)
  const noFile = new FormData()
  noFile.append('title', 'x')
  const missing = await request(record.url_upload_direct, { method: 'POST', ...await multipart(noFile) })
  t.equal(missing.statusCode, 400)
  t.equal((await missing.body.json() as { error: string }).error, 'missing_file')
  const two = new FormData()
  two.append('file', new Blob(['a']), 'a.txt')
  two.append('file', new Blob(['b']), 'b.txt')
  const twoFiles = await request(record.url_upload_direct, { method: 'POST', ...await multipart(two) })
  t.equal(twoFiles.statusCode, 400, 'one file per request')
  await twoFiles.body.dump()
  const wrongField = new FormData()
  wrongField.append('upload', new Blob(['a']), 'a.txt')
  const wrong = await request(record.url_upload_direct, { method: 'POST', ...await multipart(wrongField) })
  t.equal(wrong.statusCode, 400)
  await wrong.body.dump()
  const json = await request(record.url_upload_direct, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
  t.equal(json.statusCode, 415)
  await json.body.dump()
  const broken = await request(record.url_upload_direct, { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=zzz' }, body: '--zzz\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nabc' })
  t.equal(broken.statusCode, 400, 'a truncated multipart body')
  await broken.body.dump()
  const noBoundary = await request(record.url_upload_direct, { method: 'POST', headers: { 'content-type': 'multipart/form-data' }, body: 'x' })
  t.equal(noBoundary.statusCode, 400)
  await noBoundary.body.dump()
  const get = await request(record.url_upload_direct)
  t.equal(get.statusCode, 405)
  t.match(get.headers.allow, /POST/)
  await get.body.dump()
  const elsewhere = await request(`${emulator.uploadOrigin}/somewhere`)
  t.equal(elsewhere.statusCode, 404)
  t.match(await elsewhere.body.json(), { error: 'not_found', error_description: String, user_message: String })
  t.same(await incomingFiles(emulator.dataDir), [])
  t.equal(emulator.counters().uploads, 0)
})

t.test('a client that hangs up mid-file leaves no partial file behind', async (t) => {
  const emulator = await startTestEmulator(t)
  const record = await registerUpload(emulator)
  const boundary = 'hang-up'
  const hangUp = new AbortController()
  async function * body (): AsyncGenerator<Buffer> {
    yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="half.bin"\r\n\r\n`)
    yield Buffer.alloc(512 * 1024, 1)
    // Wait until the emulator is writing the file, then hang up.
    while ((await incomingFiles(emulator.dataDir)).length === 0) await new Promise((resolve) => setTimeout(resolve, 10))
    hangUp.abort()
    await new Promise((resolve) => setTimeout(resolve, 1000))
  }
  await t.rejects(request(record.url_upload_direct, {
    method: 'POST',
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    body: Readable.from(body()),
    signal: hangUp.signal
  }))
  const deadline = Date.now() + 5000
  while ((await incomingFiles(emulator.dataDir)).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
  t.same(await incomingFiles(emulator.dataDir), [], 'the partial file was deleted')
  t.equal(emulator.counters().uploads, 0)
  t.equal((await postFile(record.url_upload_direct)).status, 200, 'the URL still works')
})

t.test('one URL takes concurrent uploads', async (t) => {
  const emulator = await startTestEmulator(t)
  const record = await registerUpload(emulator, { max_files: '5' })
  const contents = Array.from({ length: 5 }, () => randomBytes(512 * 1024 + Math.floor(Math.random() * 1000)))
  const answers = await Promise.all(contents.map(async (content, index) => await postFile(record.url_upload_direct, { content, filename: `part-${index}.bin` })))
  t.same(answers.map((answer) => answer.status), [200, 200, 200, 200, 200])
  const files = (await apiCall(`${emulator.baseUrl}/__emulator/files`)).body.files as Array<{ name: string, sha256: string, size: number }>
  t.equal(files.length, 5)
  for (const [index, content] of contents.entries()) {
    const file = files.find((candidate) => candidate.name === `part-${index}.bin`)
    t.equal(file?.sha256, sha256(content), `part ${index} arrived intact`)
    t.equal(file?.size, content.length)
  }
  const sixth = await postFile(record.url_upload_direct)
  t.equal(sixth.status, 413)
  const finish = await apiCall(record.api.finish, { method: 'DELETE', privateToken: user(emulator, 'alice').privateToken })
  t.equal(finish.body.files.length, 5)
})

t.test('the single-call upload takes a token, a folder and a file', async (t) => {
  const emulator = await startTestEmulator(t)
  const url = `${emulator.baseUrl}/api/upload/file`
  const tokens = await signIn(emulator, { scope: 'basic upload' })
  const bearer = await postFile(url, { content: 'one', filename: 'one.txt', fields: { folder_id: '6' }, headers: { authorization: `Bearer ${tokens.access_token}` } })
  t.equal(bearer.status, 200)
  t.match(bearer.body, { status: 'success', file_id: Number, title: 'one', api: { share: String } })
  const field = await postFile(url, { content: 'two', filename: 'two.txt', fields: { private_token: user(emulator, 'alice').privateToken } })
  t.equal(field.status, 200, 'private_token as a form field')
  const files = (await apiCall(`${emulator.baseUrl}/__emulator/files`)).body.files as Array<{ folder_id: number, ulid: string | null, user: string }>
  t.match(files, [{ folder_id: 6, ulid: null, user: 'alice' }, { folder_id: 0 }])

  const anonymous = await postFile(url)
  t.equal(anonymous.status, 401)
  const bob = await postFile(url, { fields: { private_token: user(emulator, 'bob').privateToken } })
  t.equal(bob.status, 403)
  const noScope = await signIn(emulator, { scope: 'basic' })
  t.equal((await postFile(url, { headers: { authorization: `Bearer ${noScope.access_token}` } })).status, 403)
  t.same(await incomingFiles(emulator.dataDir), [], 'refused files are deleted')
  t.equal(emulator.counters().uploads, 2)
})
