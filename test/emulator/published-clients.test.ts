// The media service's own published example clients, run against the emulator exactly as they
// call the service (../shared/media-service.md, "What the service's own published clients rely
// on"): the command-line script with curl and a private token, and the plain web page that calls
// the API straight from the browser, on another origin, with fetch.
import { execFile } from 'node:child_process'
import { createServer } from 'node:http'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { startEmulator } from '../../emulator/index.js'
import { freePort } from '../helpers/ports.js'
import { requireProgram } from '../helpers/programs.js'
import { openDemoBrowser } from '../browser/demo-run.js'

const run = promisify(execFile)
const emulator = await startEmulator({ apiPort: 0, uploadPort: 0 })
t.teardown(emulator.stop)
const alice = emulator.users.find((user) => user.name === 'alice')
if (alice === undefined) throw new Error('no alice')

t.test('the command-line example: curl -F with a private token, reading the fields it prints', async (t) => {
  const curl = requireProgram('curl')
  const dir = await mkdtemp(join(tmpdir(), 'media-cli-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  await writeFile(join(dir, 'clip.mp4'), 'not really a video\n')
  const call = async (...args: string[]): Promise<Record<string, any>> => JSON.parse((await run(curl, ['-sS', ...args])).stdout)
  const auth = ['-H', `Authorization: Private-Token ${alice.privateToken}`]

  const registration = await call(...auth, '-F', 'folder_id=0', `${emulator.baseUrl}/api/upload/id`)
  t.match(registration.ulid, /^[0-9A-Z]{26}$/, 'it reads ulid (or error)')
  const upload = await call('-F', `file=@${join(dir, 'clip.mp4')};filename=holiday.mp4`, '-F', 'folder_id=0', '-F', 'title=Holiday', registration.url_upload_direct)
  t.equal(upload.status, 'success', 'it reads status (or error_description)')
  const share = await call(...auth, upload.api.share)
  t.match(share.objects.file.url, /^http:\/\/127\.0\.0\.1:\d+\/.+/, 'it prints objects.file.url, the file\'s direct link')
  const file = await call(...auth, `${emulator.baseUrl}/api/files/${String(upload.file_id)}`)
  t.equal(share.objects.file.url, file.urls.file, 'the same link the file itself names')
  const opened = await run(curl, ['-sS', '-D', '-', share.objects.file.url])
  t.match(opened.stdout, /^HTTP\/1\.1 200 /, 'the direct link opens without a token')
  t.match(opened.stdout, /\r\ncontent-type: application\/octet-stream\r\n/i, 'with the type it was sent with (curl -F names none)')
  t.ok(opened.stdout.endsWith('\r\n\r\nnot really a video\n'), 'and serves the file as uploaded')
  t.match(opened.stdout, /\r\ncontent-security-policy: sandbox\r\n/i, 'sandboxed: an uploaded page cannot script the service\'s origin')
  const walked = await run(curl, ['-sS', '-o', '/dev/null', '-w', '%{http_code}', share.objects.file.url.replace(/\/[^/]*$/, '/other.mp4')])
  t.equal(walked.stdout, '404', 'the id alone is not enough')
  const refused = await call(...auth, '-F', 'folder_id=999999', `${emulator.baseUrl}/api/upload/id`)
  t.type(refused.error, 'string', 'a refusal carries error')
  const failed = await call('-F', `file=@${join(dir, 'clip.mp4')}`, `${registration.url_upload_direct.replace(/sig=[^&]+/, 'sig=forged')}`)
  t.type(failed.error_description, 'string', 'a refused upload carries error_description')
})

t.test('the plain web page: the API from the browser on another origin, with fetch and a private token', async (t) => {
  const sitePort = await freePort()
  const siteOrigin = `http://127.0.0.1:${sitePort}`
  const page = '<!doctype html><meta charset="utf-8"><title>example</title><input id="files" type="file" multiple><ul id="links"></ul>'
  const site = createServer((_request, response) => { response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page) })
  await new Promise<void>((resolve) => site.listen(sitePort, '127.0.0.1', resolve))
  t.teardown(async () => { await new Promise((resolve) => site.close(resolve)) })
  const { page: tab, problems } = await openDemoBrowser(t)
  await tab.goto(`${siteOrigin}/`)
  await tab.setInputFiles('#files', [
    { name: 'a.jpg', mimeType: 'image/jpeg', buffer: Buffer.from('a') },
    { name: 'b.jpg', mimeType: 'image/jpeg', buffer: Buffer.from('bb') }
  ])
  // The example's steps, as it takes them.
  const links = await tab.evaluate(async ({ base, token }) => {
    const api = `${base}/api`
    const auth = { Authorization: `Private-Token ${token}` }
    const json = { ...auth, 'Content-Type': 'application/json' }
    const folder = await (await fetch(`${api}/folders/0`, { method: 'POST', headers: json, body: JSON.stringify({ name: 'From the browser' }) })).json()
    const registration = await (await fetch(`${api}/upload/id`, { method: 'POST', headers: json, body: JSON.stringify({ folder_id: folder.folder_id, hide_response: true }) })).json()
    const files = [...(document.querySelector('#files') as HTMLInputElement).files ?? []]
    await Promise.all(files.map(async (file) => {
      const form = new FormData()
      form.append('file', file)
      const answer = await fetch(registration.url_upload_direct, { method: 'POST', body: form })
      if (!answer.ok) throw new Error(`upload answered ${answer.status}`)
    }))
    const finished = await (await fetch(`${api}/upload/id/${registration.ulid}`, { method: 'DELETE', headers: auth })).json()
    return { folderId: folder.folder_id, links: finished.files.map((file: { urls: { file: string } }) => file.urls.file) }
  }, { base: emulator.baseUrl, token: alice.privateToken })
  t.type(links.folderId, 'number', 'it reads folder_id from the new folder')
  t.equal(links.links.length, 2, 'and shows files[].urls.file of both files')
  t.ok(links.links.every((link: string) => link.startsWith('http://127.0.0.1:')))
  const listed = await (await fetch(`${emulator.baseUrl}/api/folders/${String(links.folderId)}/contents`, { headers: { authorization: `Private-Token ${alice.privateToken}` } })).json() as { files: Array<{ filename: string }> }
  t.same(listed.files.map((file) => file.filename).sort(), ['a.jpg', 'b.jpg'], 'in the folder it made')
  t.same(problems, [], 'no CORS or script errors')
})
