// Sharing and oEmbed: a file's and a folder's link and embed code, share links for several
// files, and the oEmbed description of a share URL.
import t from 'tap'
import type { RunningEmulator } from '../../emulator/index.js'
import { errorShape, postFile, startTestEmulator, user } from '../helpers/emulator.js'
import { call, libraryTokens } from './library-client.js'

const everything = ['basic', 'user.info', 'manage', 'upload', 'share']

async function upload (emulator: RunningEmulator, userName: string, title: string): Promise<number> {
  const answer = await postFile(`${emulator.baseUrl}/api/upload/file`, { filename: `${title}.mp4`, fields: { folder_id: '2', title, private_token: user(emulator, userName).privateToken } })
  if (answer.status !== 200) throw new Error(`upload failed: ${answer.status}`)
  return answer.body.file_id as number
}

t.test('a file\'s and a folder\'s share link and embed code need the share scope', async (t) => {
  const emulator = await startTestEmulator(t)
  const { alice, aliceBasic, bob } = await libraryTokens(emulator)
  const fileId = await upload(emulator, 'alice', 'Open "day" <2025>')
  const file = await call(emulator, `files/${fileId}/share`, { token: alice })
  t.equal(file.status, 200)
  t.same(Object.keys(file.body), ['file_id', 'url', 'embed', 'objects'])
  t.match(file.body, { file_id: fileId, url: `${emulator.baseUrl}/share/${fileId}` })
  const { filename } = (await call(emulator, `files/${fileId}`, { token: alice })).body as { filename: string }
  t.same(file.body.objects, { file: { url: `${emulator.baseUrl}/media/${fileId}/${encodeURIComponent(filename)}` } }, 'the file\'s direct link, where the service\'s command-line example reads it')
  const direct = await fetch(file.body.objects.file.url)
  t.equal(direct.status, 200, 'which serves the file, with no token')
  t.match(file.body.embed, new RegExp(`^<iframe src="${emulator.baseUrl}/share/${fileId}"[^<>]*></iframe>$`))
  t.notMatch(file.body.embed, /<2025>|"day"/, 'the title cannot break out of the attribute')
  const folder = await call(emulator, 'folders/2/share', { token: alice })
  t.equal(folder.status, 200)
  t.same(Object.keys(folder.body), ['folder_id', 'url', 'embed'])
  t.match(folder.body, { folder_id: 2, url: `${emulator.baseUrl}/share/folder/2`, embed: /^<iframe src="[^"]+\/share\/folder\/2"/ })
  for (const path of [`files/${fileId}/share`, 'folders/2/share']) {
    for (const token of [aliceBasic, bob]) {
      const answer = await call(emulator, path, { token })
      t.equal(answer.status, 403, path)
      t.match(answer.body, { ...errorShape, error: 'insufficient_scope', error_description: /share/ })
    }
  }
  t.equal((await call(emulator, 'files/999999/share', { token: alice })).status, 404)
  t.equal((await call(emulator, 'folders/99/share', { token: alice })).status, 404)
})

t.test('share links: 201 with a fresh link, the files, download and expiry', async (t) => {
  const emulator = await startTestEmulator(t, { users: [{ name: 'alice', scopes: everything }, { name: 'carol', scopes: everything }] })
  const alice = user(emulator, 'alice').privateToken
  const privateAuth = { authorization: `Private-Token ${alice}` }
  const first = await upload(emulator, 'alice', 'one')
  const second = await upload(emulator, 'alice', 'two')
  const carols = await upload(emulator, 'carol', 'carols')
  const future = Math.floor(Date.now() / 1000) + 3600

  const form = await call(emulator, 'files/0/share/link', { method: 'POST', headers: privateAuth, form: { 'files[]': [String(first), String(second)], download: '1', expires: String(future) } })
  t.equal(form.status, 201)
  t.same(Object.keys(form.body), ['status', 'link', 'files', 'download', 'expires'])
  t.match(form.body, { status: 'success', link: new RegExp(`^${emulator.baseUrl}/s/[A-Za-z0-9_-]{20,}$`), files: [first, second], download: true, expires: future })

  const json = await call(emulator, 'files/0/share/link', { method: 'POST', headers: privateAuth, json: { files: [first, String(second), first] } })
  t.equal(json.status, 201, 'JSON, ids as numbers or strings')
  t.match(json.body, { files: [first, second], download: false, expires: null }, 'repeats dropped; no download, no expiry by default')
  t.not(json.body.link, form.body.link, 'every link is new')

  const single = await call(emulator, 'files/0/share/link', { method: 'POST', headers: privateAuth, form: { files: String(first), download: 'false' } })
  t.match(single.body, { files: [first], download: false }, 'a single files field')
  const tomorrow = new Date(Date.now() + 24 * 3600 * 1000).toISOString().slice(0, 10)
  const dated = await call(emulator, 'files/0/share/link', { method: 'POST', headers: privateAuth, json: { files: [first], expires: tomorrow } })
  t.equal(dated.status, 201)
  t.equal(dated.body.expires, Date.parse(`${tomorrow}T00:00:00Z`) / 1000 + 24 * 3600, 'a date expires at the end of that day, UTC')

  const bad: Array<[string, unknown]> = [
    ['no files', {}], ['an empty list', { files: [] }], ['a text id', { files: ['one'] }], ['a negative id', { files: [-1] }],
    ['101 files', { files: Array.from({ length: 101 }, (_, i) => i + 1) }], ['expires in the past', { files: [first], expires: 1000 }],
    ['expires now-ish text', { files: [first], expires: 'tomorrow' }], ['a date that does not exist', { files: [first], expires: '2099-02-30' }],
    ['a past date', { files: [first], expires: '2001-01-01' }], ['download maybe', { files: [first], download: 'maybe' }]
  ]
  for (const [what, body] of bad) {
    const answer = await call(emulator, 'files/0/share/link', { method: 'POST', headers: privateAuth, json: body })
    t.equal(answer.status, 400, what)
    t.match(answer.body, { ...errorShape, error: 'invalid_request' }, what)
  }
  for (const files of [[999999], [first, carols]]) {
    const answer = await call(emulator, 'files/0/share/link', { method: 'POST', headers: privateAuth, json: { files } })
    t.equal(answer.status, 404, `files ${files.join(',')}`)
    t.match(answer.body, { ...errorShape, error: 'file_not_found' })
  }
  t.equal((await call(emulator, `files/${first}/share/link`, { method: 'POST', headers: privateAuth, json: { files: [first] } })).status, 404, 'only under file 0')
})

t.test('share links need the share scope', async (t) => {
  const emulator = await startTestEmulator(t)
  const { aliceBasic, bob } = await libraryTokens(emulator)
  const fileId = await upload(emulator, 'alice', 'one')
  for (const token of [aliceBasic, bob]) {
    const answer = await call(emulator, 'files/0/share/link', { method: 'POST', token, json: { files: [fileId] } })
    t.equal(answer.status, 403)
    t.equal(answer.body.error, 'insufficient_scope')
  }
  t.equal((await call(emulator, 'files/0/share/link', { method: 'POST', json: { files: [fileId] } })).status, 401)
})

t.test('oEmbed describes the caller\'s own share URLs only', async (t) => {
  const emulator = await startTestEmulator(t)
  const { alice, aliceBasic, bob } = await libraryTokens(emulator)
  const fileId = await upload(emulator, 'alice', 'Welcome week')
  const shareUrl = (await call(emulator, `files/${fileId}/share`, { token: alice })).body.url as string
  for (const path of ['oembed', 'oembed/']) {
    const answer = await call(emulator, `${path}?url=${encodeURIComponent(shareUrl)}&maxwidth=300`, { token: aliceBasic })
    t.equal(answer.status, 200, path)
    t.same(answer.body, {
      version: '1.0',
      type: 'video',
      provider_name: 'media emulator',
      title: 'Welcome week',
      html: answer.body.html,
      width: 640,
      height: 360
    }, path)
    t.match(answer.body.html, new RegExp(`^<iframe src="${shareUrl}"`))
  }
  const others = [
    `${emulator.baseUrl}/share/999999`, `${emulator.baseUrl}/share/0${fileId}`, `${shareUrl}/extra`, `${shareUrl}?x=1`,
    shareUrl.replace('127.0.0.1', 'localhost'), `${emulator.baseUrl}/share/folder/1`, 'https://elsewhere.example/share/1'
  ]
  for (const url of others) {
    const answer = await call(emulator, `oembed?url=${encodeURIComponent(url)}`, { token: alice })
    t.equal(answer.status, 404, url)
    t.match(answer.body, errorShape, url)
  }
  t.equal((await call(emulator, `oembed?url=${encodeURIComponent(shareUrl)}`, { token: bob })).status, 404, 'another user\'s share URL')
  t.equal((await call(emulator, 'oembed', { token: alice })).status, 400, 'no url')
  t.equal((await call(emulator, `oembed?url=${encodeURIComponent(shareUrl)}&url=${encodeURIComponent(shareUrl)}`, { token: alice })).status, 400, 'two urls')
  t.equal((await call(emulator, `oembed?url=${encodeURIComponent(shareUrl)}`)).status, 401)
})
