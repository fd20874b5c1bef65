// The relay against the emulator: every row of the allowlist works for a user with the scope,
// asks for consent when the scope is missing, says "no right" to a user who is not entitled, and
// needs CSRF proof on writes. What reached the service is read back from the emulator itself.
import t from 'tap'
import { startStack } from '../helpers/bff.js'
import { build, type Built } from '../helpers/build.js'
import { signIn } from '../helpers/sign-in.js'
import { uploadDirect } from '../helpers/direct-upload.js'
import type { Browser, HttpResponse } from '../helpers/http-client.js'

const ALL_SCOPES = { OAUTH_SCOPES: 'basic user.info manage upload share', UPSTREAM_TIMEOUT_MS: '1500' }

type Stack = Awaited<ReturnType<typeof startStack>> | Built

async function write (browser: Browser, method: string, path: string, json?: unknown): Promise<HttpResponse> {
  return await browser.fetch(method, path, { headers: { 'x-csrf': '1' }, ...(json === undefined ? {} : { json }) })
}

async function received (stack: Stack): Promise<Array<{ method: string, path: string, headers: Record<string, string> }>> {
  const answer = await fetch(`${stack.emulator.apiOrigin}/__emulator/received`)
  return (await answer.json() as { requests: Array<{ method: string, path: string, headers: Record<string, string> }> }).requests
}

/** Uploads one file into `folderId` the way the demo does; returns its file id. */
async function uploadInto (browser: Browser, folderId: number, name: string, title: string): Promise<number> {
  const record = (await browser.post('/uploads/register', { folder_id: folderId })).json()
  const sent = await uploadDirect(record.url_upload_direct, name, `bytes of ${name}`, { title })
  if (sent.status !== 200) throw new Error(`upload answered ${sent.status}`)
  const finished = (await browser.post(record.finish_url)).json()
  return finished.files[0].file_id
}

t.test('every operation of the allowlist, for a user who has its scope', async (t) => {
  const stack = await build(t, { env: ALL_SCOPES })
  const browser = await stack.signedIn()
  const local = `${stack.config.publicUrl}/api`

  const info = await browser.get('/api/user/info')
  t.equal(info.status, 200)
  t.match(info.json(), { name: 'Alice Example', scopes: ['basic', 'user.info', 'manage', 'upload', 'share'] })

  const home = await browser.get('/api/folders/0')
  t.equal(home.status, 200)
  t.equal(home.json().folder_id, 0)
  t.equal(home.json().api.contents, `${local}/folders/0/contents`, 'links lead back through media-bff')

  const contents = (await browser.get('/api/folders/0/contents')).json()
  const archive = contents.folders.find((folder: { name: string }) => folder.name === 'Archive')
  t.ok(archive, 'the seeded tree')
  t.same((await browser.get(`/api/folders/${String(archive.folder_id)}/contents`)).json().folders.map((folder: { name: string }) => folder.name).sort(), ['2024', '2025'])
  t.same((await browser.get('/api/folders/0/contents?folders=0')).json().folders, [], 'the folders filter')
  t.ok((await browser.get('/api/folders/0/contents?files=false&folders=true')).json().folders.length > 0)

  const created = await write(browser, 'POST', '/api/folders/0', { name: 'Walk' })
  t.equal(created.status, 201)
  const folderId: number = created.json().folder_id
  t.equal(created.json().name, 'Walk')
  const duplicate = await write(browser, 'POST', '/api/folders/0', { name: 'Walk' })
  t.equal(duplicate.status, 409)
  t.match(duplicate.json(), { error: 'upstream_refused', upstream: { endpoint: 'folder_create', status: 409, error: 'folder_exists' } })
  const renamed = await write(browser, 'PUT', `/api/folders/${folderId}`, { name: 'Walk 2026' })
  t.equal(renamed.status, 200)
  t.equal(renamed.json().name, 'Walk 2026')

  const fileId = await uploadInto(browser, folderId, 'clip.mp4', 'A clip')
  const listed = (await browser.get(`/api/folders/${folderId}/contents`)).json()
  t.same(listed.files.map((file: { title: string }) => file.title), ['A clip'])
  t.equal(listed.files[0].api.self, `${local}/files/${fileId}`)
  t.equal((await browser.get(`/api/files/${fileId}`)).json().title, 'A clip')
  t.equal((await write(browser, 'PUT', `/api/files/${fileId}`, { title: 'The clip' })).json().title, 'The clip')

  const share = await browser.get(`/api/files/${fileId}/share`)
  t.equal(share.status, 200)
  t.match(share.json().url, /^http:\/\/127\.0\.0\.1:\d+\/share\/\d+$/, 'share links are the service\'s own, not rewritten')
  t.equal((await browser.get(`/api/folders/${folderId}/share`)).status, 200)
  const link = await write(browser, 'POST', '/api/files/0/share/link', { files: [fileId], download: true })
  t.equal(link.status, 201)
  t.match(link.json(), { status: 'success', files: [fileId], download: true })
  const formLink = await browser.fetch('POST', '/api/files/0/share/link', {
    headers: { 'x-csrf': '1', 'content-type': 'application/x-www-form-urlencoded' },
    body: `files[]=${fileId}&expires=2099-01-01`
  })
  t.equal(formLink.status, 201, 'a url-encoded body like the service\'s own forms')
  const oembed = await browser.get(`/api/oembed?url=${encodeURIComponent(share.json().url)}`)
  t.equal(oembed.status, 200)
  t.equal(oembed.json().title, 'The clip')

  t.equal((await write(browser, 'DELETE', `/api/folders/${folderId}`)).status, 409, 'not empty')
  t.equal((await write(browser, 'DELETE', `/api/files/${fileId}`)).status, 200)
  t.equal((await browser.get(`/api/files/${fileId}`)).status, 404)
  t.equal((await write(browser, 'DELETE', `/api/folders/${folderId}`)).status, 200)
  t.match((await browser.get(`/api/folders/${folderId}`)).json(), { error: 'not_found', upstream: { status: 404 } })

  const ids = (await browser.get('/api/folders/0/contents')).json().folders.map((folder: { folder_id: number }) => folder.folder_id)
  t.notOk(ids.includes(folderId), 'gone from the listing')
  t.ok((await received(stack)).some((request) => request.method === 'PUT' && request.path === `/api/files/${fileId}`))
})

t.test('a missing scope: insufficient_scope naming the union, and after consent the call works', async (t) => {
  const stack = await startStack({ env: { OAUTH_SCOPES: 'basic user.info' } })
  t.teardown(stack.close)
  const browser = stack.bff.browser({ referer: `${stack.bff.url}/library` })
  await signIn(browser)
  t.equal((await browser.get('/api/folders/0/contents')).status, 200, 'basic is enough to browse')
  const rows: Array<[string, string, unknown, string]> = [
    ['POST', '/api/folders/0', { name: 'New' }, 'manage'],
    ['PUT', '/api/folders/1', { name: 'Renamed' }, 'manage'],
    ['DELETE', '/api/folders/8', undefined, 'manage'],
    ['PUT', '/api/files/1', { title: 'x' }, 'manage'],
    ['DELETE', '/api/files/1', undefined, 'manage'],
    ['GET', '/api/files/1/share', undefined, 'share'],
    ['GET', '/api/folders/1/share', undefined, 'share'],
    ['POST', '/api/files/0/share/link', { files: [1] }, 'share']
  ]
  const before = (await received(stack)).length
  for (const [method, path, body, scope] of rows) {
    const answer = method === 'GET' ? await browser.get(path) : await write(browser, method, path, body)
    t.equal(answer.status, 403, `${method} ${path}`)
    t.match(answer.json(), { error: 'insufficient_scope', required_scopes: [scope] })
    const reauthorize = new URL(answer.json().reauthorize_url, stack.bff.url)
    t.equal(reauthorize.searchParams.get('scope'), `basic user.info ${scope}`)
    t.equal(reauthorize.searchParams.get('return_to'), '/library')
  }
  t.equal((await received(stack)).length, before, 'nothing was relayed without the scope')
  const first = await write(browser, 'POST', '/api/folders/0', { name: 'New' })
  await signIn(browser, { loginPath: first.json().reauthorize_url })
  t.equal((await write(browser, 'POST', '/api/folders/0', { name: 'New' })).status, 201, 'after consent')
})

t.test('bob is not entitled to manage or share: insufficient_scope once, then scope_not_granted', async (t) => {
  const stack = await startStack()
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  await signIn(browser, { user: 'bob' })
  t.equal((await browser.get('/api/user/info')).status, 200)
  t.equal((await browser.get('/api/folders/0/contents')).status, 200)
  const first = await write(browser, 'POST', '/api/folders/0', { name: 'Mine' })
  t.equal(first.json().error, 'insufficient_scope')
  await signIn(browser, { user: 'bob', loginPath: first.json().reauthorize_url })
  const second = await write(browser, 'POST', '/api/folders/0', { name: 'Mine' })
  t.equal(second.status, 403)
  t.equal(second.json().error, 'scope_not_granted')
  t.notOk(second.json().reauthorize_url, 'no loop')

  const share = await browser.get('/api/files/1/share')
  t.equal(share.json().error, 'insufficient_scope')
  await signIn(browser, { user: 'bob', loginPath: share.json().reauthorize_url })
  t.equal((await browser.get('/api/files/1/share')).json().error, 'scope_not_granted')
})

t.test('signed out: 401 login_required for every operation, before any CSRF or scope check reaches the service', async (t) => {
  const stack = await build(t, { env: ALL_SCOPES })
  const browser = stack.browser()
  for (const [method, path] of [['GET', '/api/user/info'], ['GET', '/api/folders/0/contents'], ['POST', '/api/folders/0'], ['DELETE', '/api/files/3'], ['GET', '/api/oembed?url=https://x.example/']] as const) {
    const answer = method === 'GET' ? await browser.get(path) : await write(browser, method, path, { name: 'x' })
    t.equal(answer.status, 401, `${method} ${path}`)
    t.match(answer.json(), { error: 'login_required', login_url: '/auth/login' })
  }
  t.same(await received(stack), [])
})

t.test('writes need X-CSRF and an allowed Origin; refused ones never reach the service', async (t) => {
  const stack = await build(t, { env: ALL_SCOPES })
  const browser = await stack.signedIn()
  const writes: Array<[string, string, unknown]> = [
    ['POST', '/api/folders/0', { name: 'x' }],
    ['PUT', '/api/folders/1', { name: 'x' }],
    ['DELETE', '/api/folders/8', undefined],
    ['PUT', '/api/files/1', { title: 'x' }],
    ['DELETE', '/api/files/1', undefined],
    ['POST', '/api/files/0/share/link', { files: [1] }]
  ]
  const before = (await received(stack)).length
  for (const [method, path, json] of writes) {
    const bare = await browser.fetch(method, path, json === undefined ? {} : { json })
    t.equal(bare.status, 403, `${method} ${path} without X-CSRF`)
    t.equal(bare.json().error, 'csrf_failed')
    const foreign = await browser.fetch(method, path, { headers: { 'x-csrf': '1', origin: 'https://evil.example' }, ...(json === undefined ? {} : { json }) })
    t.equal(foreign.json().error, 'csrf_failed', `${method} ${path} from a foreign origin`)
  }
  t.equal((await received(stack)).length, before)
})

t.test('what the service receives and what comes back: the token only; no cookie of the service\'s', async (t) => {
  const stack = await build(t, { env: ALL_SCOPES })
  const browser = await stack.signedIn()
  const answer = await browser.fetch('GET', '/api/folders/0/contents', { headers: { authorization: 'Basic Zm9vOmJhcg==', 'x-csrf': '1' } })
  t.equal(answer.status, 200)
  t.same(answer.setCookies, [], 'the emulator\'s affinity cookie stays upstream')
  const request = (await received(stack)).findLast((entry) => entry.path === '/api/folders/0/contents')
  t.ok(request)
  t.match(request?.headers.authorization, /^Bearer /)
  for (const header of ['cookie', 'x-csrf', 'origin', 'referer']) t.notOk(header in (request?.headers ?? {}), `${header} not forwarded`)
  const etag = String(answer.headers.etag)
  t.match(etag, /^W\/"/)
  const again = await browser.get('/api/folders/0/contents', { 'if-none-match': etag })
  t.equal(again.status, 304, 'a conditional GET revalidates through the relay')
})

t.test('faults: a 401 refreshes once and retries; 5xx and nonsense are 502, silence 504; the session survives', async (t) => {
  const stack = await build(t, { env: ALL_SCOPES })
  const browser = await stack.signedIn()
  const before = stack.emulator.counters().tokenGrants.refresh_token
  stack.emulator.injectFault({ endpoint: 'library', failStatus: 401, failCount: 1 })
  t.equal((await browser.get('/api/folders/0/contents')).status, 200)
  t.equal(stack.emulator.counters().tokenGrants.refresh_token - before, 1, 'one refresh')

  stack.emulator.injectFault({ endpoint: 'library', failStatus: 500, failCount: 1 })
  t.match((await browser.get('/api/folders/0')).json(), { error: 'upstream_error', upstream: { endpoint: 'folder', status: 500 } })
  stack.emulator.injectFault({ endpoint: 'library', malformed: true, failCount: 1 })
  t.equal((await browser.get('/api/folders/0')).json().error, 'upstream_error')
  stack.emulator.injectFault({ endpoint: 'library', drop: true, failCount: 1 })
  t.equal((await browser.get('/api/folders/0')).status, 502)
  stack.emulator.injectFault({ endpoint: 'library', delayMs: 3000 })
  const slow = await browser.get('/api/folders/0')
  t.equal(slow.status, 504)
  t.equal(slow.json().error, 'upstream_timeout')
  stack.emulator.clearFaults()
  t.equal((await browser.get('/api/folders/0')).status, 200, 'still signed in')
  t.equal((await browser.get('/auth/session')).json().authenticated, true)
})

t.test('relayed calls count against RATE_LIMIT_API_PER_MINUTE per user: 429 with Retry-After beyond it', async (t) => {
  const stack = await build(t, { env: { OAUTH_SCOPES: 'basic user.info', RATE_LIMIT_API_PER_MINUTE: '3' } })
  const browser = await stack.signedIn()
  for (let i = 0; i < 3; i++) t.equal((await browser.get('/api/folders/0')).status, 200, `call ${i + 1}`)
  const limited = await browser.get('/api/folders/0/contents')
  t.equal(limited.status, 429, 'the budget is shared by every relayed operation')
  t.equal(limited.json().error, 'rate_limited')
  t.ok(Number(limited.headers['retry-after']) > 0)
  t.equal((await browser.post('/uploads/register', { folder_id: 0 })).json().error, 'insufficient_scope', 'other routes keep their own budgets')
})
