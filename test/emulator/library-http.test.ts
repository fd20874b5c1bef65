// What every library call shares on the wire: the library's validators and 304s on GETs, the affinity cookie on
// every answer, the record of what reached /api/, and the `library` fault endpoint.
import t from 'tap'
import { request } from 'undici'
import type { RunningEmulator } from '../../emulator/index.js'
import { affinityCookieName } from '../../emulator/library/library-scope.js'
import { apiCall, errorShape, postFile, startTestEmulator, user } from '../helpers/emulator.js'
import { call, libraryTokens } from './library-client.js'

const cookiePattern = new RegExp(`^${affinityCookieName}=[A-Za-z0-9_-]{8,}; Path=/; HttpOnly$`)

async function aliceFile (emulator: RunningEmulator): Promise<number> {
  const answer = await postFile(`${emulator.baseUrl}/api/upload/file`, { fields: { folder_id: '1', private_token: user(emulator, 'alice').privateToken } })
  return answer.body.file_id as number
}

t.test('every successful GET carries the library\'s validators and revalidates with If-None-Match', async (t) => {
  const emulator = await startTestEmulator(t)
  const { alice } = await libraryTokens(emulator)
  const fileId = await aliceFile(emulator)
  const shareUrl = `${emulator.baseUrl}/share/${fileId}`
  const paths = ['folders/1', 'folders/1/contents', 'folders/1/contents?files=0', `files/${fileId}`, `files/${fileId}/share`, 'folders/1/share', `oembed?url=${encodeURIComponent(shareUrl)}`]
  const tags = new Set<string>()
  for (const path of paths) {
    const first = await call(emulator, path, { token: alice })
    t.equal(first.status, 200, path)
    const etag = first.headers.etag as string
    t.match(etag, /^W\/"v\d+"$/, `${path}: weak, from the library's version`)
    t.ok(!Number.isNaN(Date.parse(first.headers['last-modified'] as string)), `${path}: Last-Modified`)
    t.equal(first.headers['cache-control'], 'private, no-cache', path)
    t.match(first.headers['content-type'], /^application\/json/, path)
    tags.add(etag)
    for (const condition of [etag, etag.slice(2), `"other", ${etag}`, '*', ` W/"x" ,${etag} `]) {
      const again = await call(emulator, path, { token: alice, headers: { 'if-none-match': condition } })
      t.equal(again.status, 304, `${path} If-None-Match: ${condition}`)
      t.equal(again.text, '', 'no body')
      t.equal(again.headers.etag, etag)
      t.equal(again.headers['cache-control'], 'private, no-cache')
    }
    for (const condition of ['"other"', etag.replace('"v', '"x'), etag.slice(3, -1)]) {
      t.equal((await call(emulator, path, { token: alice, headers: { 'if-none-match': condition } })).status, 200, `${path} If-None-Match: ${condition}`)
    }
  }
  t.equal(tags.size, 1, 'one version for the whole unchanged library')

  const before = (await call(emulator, 'folders/1', { token: alice })).headers.etag as string
  await call(emulator, 'folders/1', { method: 'PUT', token: alice, form: { name: 'Lectures 2025' } })
  const after = await call(emulator, 'folders/1', { token: alice, headers: { 'if-none-match': before } })
  t.equal(after.status, 200, 'a change changes the tag')
  t.not(after.headers.etag, before)
  t.equal((await call(emulator, 'folders/99', { token: alice, headers: { 'if-none-match': '*' } })).status, 404, '* matches only what exists')
  const created = await call(emulator, 'folders/0', { method: 'POST', token: alice, form: { name: 'New' } })
  t.equal(created.headers.etag, undefined, 'writes carry no tag')
  t.equal(created.headers['cache-control'], 'no-store')
  const listed = await call(emulator, 'folders/0/contents', { token: alice, headers: { 'if-none-match': after.headers.etag as string } })
  t.equal(listed.status, 200, 'creating a folder is a change too')
  const uploaded = await aliceFile(emulator)
  t.equal((await call(emulator, 'folders/1/contents', { token: alice, headers: { 'if-none-match': listed.headers.etag as string } })).status, 200, `so is an upload (file ${uploaded})`)
})

t.test('the validators are the library\'s, not the body\'s: two users\' untouched libraries share them', async (t) => {
  const emulator = await startTestEmulator(t)
  const { alice, bob } = await libraryTokens(emulator)
  const aliceHome = await call(emulator, 'folders/0/contents', { token: alice })
  const bobHome = await call(emulator, 'folders/0/contents', { token: bob })
  t.equal(bobHome.headers.etag, aliceHome.headers.etag, 'the same ETag')
  t.equal(bobHome.headers['last-modified'], aliceHome.headers['last-modified'], 'the same Last-Modified')
  t.equal((await call(emulator, 'folders/0/contents', { token: bob, headers: { 'if-none-match': aliceHome.headers.etag as string } })).status, 304, 'alice\'s tag revalidates bob\'s listing')
})

t.test('If-Modified-Since counts only without If-None-Match', async (t) => {
  const emulator = await startTestEmulator(t)
  const { alice } = await libraryTokens(emulator)
  const first = await call(emulator, 'folders/0/contents', { token: alice })
  const lastModified = first.headers['last-modified'] as string
  const earlier = new Date(Date.parse(lastModified) - 1000).toUTCString()
  t.equal((await call(emulator, 'folders/0/contents', { token: alice, headers: { 'if-modified-since': lastModified } })).status, 304, 'not modified since its own date')
  t.equal((await call(emulator, 'folders/0/contents', { token: alice, headers: { 'if-modified-since': earlier } })).status, 200, 'modified since an earlier one')
  t.equal((await call(emulator, 'folders/0/contents', { token: alice, headers: { 'if-modified-since': 'not a date' } })).status, 200, 'a date that is none')
  t.equal((await call(emulator, 'folders/0/contents', { token: alice, headers: { 'if-none-match': '"other"', 'if-modified-since': lastModified } })).status, 200, 'If-None-Match decides when both are sent')
})

t.test('every library answer sets the affinity cookie: success, errors, 304, faults', async (t) => {
  const emulator = await startTestEmulator(t)
  const { alice, bob } = await libraryTokens(emulator)
  const ok = await call(emulator, 'folders/0', { token: alice })
  const answers: Array<[string, Awaited<ReturnType<typeof call>>]> = [
    ['200', ok],
    ['201', await call(emulator, 'folders/0', { method: 'POST', token: alice, form: { name: 'Cookies' } })],
    ['304', await call(emulator, 'folders/0', { token: alice, headers: { 'if-none-match': ok.headers.etag as string } })],
    ['400', await call(emulator, 'folders/0/contents?files=2', { token: alice })],
    ['401', await call(emulator, 'folders/0')],
    ['403', await call(emulator, 'folders/0', { method: 'POST', token: bob, form: { name: 'x' } })],
    ['404', await call(emulator, 'files/123', { token: alice })],
    ['409', await call(emulator, 'folders/0', { method: 'POST', token: alice, form: { name: 'Cookies' } })]
  ]
  emulator.injectFault({ endpoint: 'library', failStatus: 502 })
  answers.push(['an injected 502', await call(emulator, 'folders/0', { token: alice })])
  const values = new Set<string>()
  for (const [what, answer] of answers) {
    const cookie = answer.headers['set-cookie']
    t.match(cookie, cookiePattern, what)
    values.add(String(cookie))
  }
  t.equal(values.size, answers.length, 'a new value every time')
  const userInfo = await apiCall(`${emulator.baseUrl}/api/user/info`, { token: alice })
  t.equal(userInfo.headers['set-cookie'], undefined, 'the OAuth and upload calls set none')
})

t.test('the emulator records what reached /api/: method, path with query, headers as sent', async (t) => {
  const emulator = await startTestEmulator(t)
  const { alice } = await libraryTokens(emulator)
  const cleared = await apiCall(`${emulator.baseUrl}/__emulator/received`, { method: 'DELETE' })
  t.same(cleared.body, { requests: [] })
  await request(`${emulator.baseUrl}/api/folders/0/contents?files=0&x=%20y`, {
    headers: { authorization: `Bearer ${alice}`, cookie: 'session=abc; other=1', 'X-Custom-Thing': 'yes', 'if-none-match': '"tag"' }
  }).then(async (answer) => { await answer.body.dump() })
  await apiCall(`${emulator.baseUrl}/api/folders/0`, { method: 'POST', json: { name: 'Recorded' }, token: alice })
  await apiCall(`${emulator.baseUrl}/api/nothing/here`)
  await apiCall(`${emulator.baseUrl}/__emulator/counters`)
  const received = (await apiCall(`${emulator.baseUrl}/__emulator/received`)).body.requests as Array<{ method: string, path: string, headers: Record<string, string>, rawHeaders: Array<[string, string]>, receivedAt: number }>
  t.same(received.map((entry) => [entry.method, entry.path]), [
    ['GET', '/api/folders/0/contents?files=0&x=%20y'],
    ['POST', '/api/folders/0'],
    ['GET', '/api/nothing/here']
  ], 'in order, unknown paths included, hooks left out')
  t.match(received[0]?.headers, { authorization: `Bearer ${alice}`, cookie: 'session=abc; other=1', 'x-custom-thing': 'yes', 'if-none-match': '"tag"', host: String })
  t.ok(received[0]?.rawHeaders.some(([name, value]) => name === 'X-Custom-Thing' && value === 'yes'), 'raw header names as sent')
  t.match(received[1]?.headers, { 'content-type': 'application/json', 'content-length': String })
  t.ok(Math.abs((received[0]?.receivedAt ?? 0) - Date.now()) < 60_000, 'receivedAt in milliseconds')
  t.same(emulator.receivedRequests(), received, 'the same through RunningEmulator')

  for (let i = 0; i < 205; i++) await apiCall(`${emulator.baseUrl}/api/folders/${i}`, { token: alice })
  const all = emulator.receivedRequests()
  t.equal(all.length, 200, 'the last 200 only')
  t.equal(all[0]?.path, '/api/folders/5')
  t.equal(all[199]?.path, '/api/folders/204')
  all[0]!.headers.cookie = 'changed'
  t.equal(emulator.receivedRequests()[0]?.headers.cookie, undefined, 'a copy is handed out')
  emulator.clearReceivedRequests()
  t.same((await apiCall(`${emulator.baseUrl}/__emulator/received`)).body, { requests: [] })
})

t.test('the library fault endpoint: failStatus + failCount, delay, drop, malformed', async (t) => {
  const emulator = await startTestEmulator(t)
  const { alice } = await libraryTokens(emulator)
  const fileId = await aliceFile(emulator)
  const injected = await apiCall(`${emulator.baseUrl}/__emulator/faults`, { method: 'POST', json: { endpoint: 'library', failStatus: 503, failCount: 3 } })
  t.equal(injected.status, 200)
  const targets: Array<[string, 'GET' | 'POST' | 'PUT' | 'DELETE']> = [['folders/0', 'GET'], [`files/${fileId}`, 'PUT'], ['files/0/share/link', 'POST']]
  for (const [path, method] of targets) {
    const answer = await call(emulator, path, { method, token: alice, json: { title: 't', files: [fileId] } })
    t.equal(answer.status, 503, `${method} ${path}`)
    t.match(answer.body, { ...errorShape, error: 'injected_fault' })
  }
  t.equal((await call(emulator, 'folders/0', { token: alice })).status, 200, 'three calls only')
  t.equal((await apiCall(`${emulator.baseUrl}/api/user/info`, { token: alice })).status, 200, 'other endpoints are untouched')

  emulator.injectFault({ endpoint: 'library', malformed: true })
  const malformed = await call(emulator, `oembed?url=${encodeURIComponent(`${emulator.baseUrl}/share/${fileId}`)}`, { token: alice })
  t.equal(malformed.status, 200)
  t.throws(() => JSON.parse(malformed.text), 'not JSON')

  emulator.injectFault({ endpoint: 'library', drop: true })
  await t.rejects(call(emulator, 'folders/0/contents', { token: alice }), 'dropped')
  t.equal((await call(emulator, 'folders/0/contents', { token: alice })).status, 200)

  emulator.injectFault({ endpoint: 'library', delayMs: 200 })
  const started = Date.now()
  t.equal((await call(emulator, `files/${fileId}/share`, { token: alice })).status, 200)
  t.ok(Date.now() - started >= 190, 'delayed')
  emulator.clearFaults()
  t.same((await apiCall(`${emulator.baseUrl}/__emulator/faults`)).body.faults, [], 'cleared')
})
