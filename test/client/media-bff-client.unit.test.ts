// The browser module's relay calls, against a stand-in fetch: the request each typed call sends
// (method, path, headers, body), ids checked before anything is sent, and answers and refusals
// read as the contract describes them.
import t, { type Test } from 'tap'
import { createMediaBffClient, MediaBffError, safeHttpUrl } from '../../public/client/media-bff-client.js'

interface Sent {
  url: string
  method: string
  headers: Record<string, string>
  body: unknown
  credentials: string | undefined
}

/** Replaces fetch for one test; every request is recorded and answered by `answer`. */
function stubFetch (t: Test, answer: (sent: Sent) => Response = () => json(200, {})): Sent[] {
  const sent: Sent[] = []
  const original = globalThis.fetch
  globalThis.fetch = async (input: string | URL | Request, init: RequestInit = {}) => {
    const request: Sent = {
      url: String(input),
      method: init.method ?? 'GET',
      headers: { ...(init.headers as Record<string, string> | undefined) },
      body: typeof init.body === 'string' ? JSON.parse(init.body) : init.body,
      credentials: init.credentials
    }
    sent.push(request)
    return answer(request)
  }
  t.teardown(() => { globalThis.fetch = original })
  return sent
}

function json (status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
}

t.test('every call carries the cookie and X-CSRF, reads included; writes carry JSON', async (t) => {
  const sent = stubFetch(t, (request) => json(request.method === 'POST' ? 201 : 200, { folder_id: 9, name: 'New' }))
  const bff = createMediaBffClient()
  await bff.folders.get(5)
  await bff.folders.create(0, 'New')
  await bff.folders.rename('9', 'Newer')
  t.match(sent, [
    { url: '/api/folders/5', method: 'GET', credentials: 'include', body: undefined },
    { url: '/api/folders/0', method: 'POST', credentials: 'include', body: { name: 'New' } },
    { url: '/api/folders/9', method: 'PUT', body: { name: 'Newer' } }
  ])
  t.match(sent[0]?.headers, { 'x-csrf': '1' }, 'X-CSRF on a read too (RFC 10017 §6.1.3.3.2)')
  t.notOk('content-type' in (sent[0]?.headers ?? {}), 'no content type without a body')
  for (const write of sent.slice(1)) t.match(write.headers, { 'x-csrf': '1', 'content-type': 'application/json' })
})

t.test('every typed call reaches the documented operation', async (t) => {
  const sent = stubFetch(t, (request) => request.method === 'DELETE' ? new Response(null, { status: 204 }) : json(200, {}))
  const bff = createMediaBffClient({ baseUrl: 'https://bff.example.test/' })
  await bff.userInfo()
  await bff.folders.contents(3, { folders: false, files: true })
  await bff.folders.contents(0)
  await bff.folders.remove(4)
  await bff.folders.share(4)
  await bff.files.get(12)
  await bff.files.update(12, { title: 'Keynote' })
  await bff.files.remove(12)
  await bff.files.share(12)
  await bff.files.shareLink([12, '13'], { download: true, expires: new Date('2030-01-02T00:00:00Z') })
  await bff.files.shareLink([14], { expires: '2030-01-02' })
  await bff.oembed('https://media.example.test/share/12?a=1&b=2')
  t.same(sent.map((request) => `${request.method} ${request.url}`), [
    'GET https://bff.example.test/api/user/info',
    'GET https://bff.example.test/api/folders/3/contents?folders=0&files=1',
    'GET https://bff.example.test/api/folders/0/contents',
    'DELETE https://bff.example.test/api/folders/4',
    'GET https://bff.example.test/api/folders/4/share',
    'GET https://bff.example.test/api/files/12',
    'PUT https://bff.example.test/api/files/12',
    'DELETE https://bff.example.test/api/files/12',
    'GET https://bff.example.test/api/files/12/share',
    'POST https://bff.example.test/api/files/0/share/link',
    'POST https://bff.example.test/api/files/0/share/link',
    'GET https://bff.example.test/api/oembed?url=https%3A%2F%2Fmedia.example.test%2Fshare%2F12%3Fa%3D1%26b%3D2'
  ])
  t.same(sent[6]?.body, { title: 'Keynote' })
  t.same(sent[9]?.body, { files: [12, 13], download: true, expires: 1893542400 })
  t.same(sent[10]?.body, { files: [14], expires: '2030-01-02' })
  t.notOk('content-type' in (sent[3]?.headers ?? {}), 'a DELETE sends no body')
  t.equal(sent[3]?.headers['x-csrf'], '1')
})

t.test('ids that are not non-negative integers fail before anything is sent', async (t) => {
  const sent = stubFetch(t)
  const bff = createMediaBffClient()
  // At most 15 digits: media-bff's relay refuses longer ids, so they are not sent.
  const bad: unknown[] = [-1, 1.5, Number.NaN, Infinity, 2 ** 53, 10 ** 15, '1000000000000000', '12a', '../user', '1/2', '', ' 3', '-0', '1e3', null, undefined, {}]
  for (const id of bad) {
    const error = await bff.folders.get(id as number).then(() => undefined, (caught: unknown) => caught)
    t.ok(error instanceof MediaBffError, `${String(id)} is refused`)
    t.match(error, { status: 0, code: 'invalid_request', details: { field: 'id' } })
  }
  await t.rejects(bff.folders.create(-3, 'x'), { code: 'invalid_request', details: { field: 'parent_id' } })
  await t.rejects(bff.files.shareLink([1, -2]), { code: 'invalid_request', details: { field: 'files' } })
  await t.rejects(bff.files.shareLink([]), { code: 'invalid_request', details: { field: 'files' } })
  await t.rejects(bff.files.shareLink([1], { expires: new Date('nonsense') }), { code: 'invalid_request', details: { field: 'expires' } })
  t.same(sent, [], 'nothing was sent')
  await bff.files.get('0042')
  t.equal(sent[0]?.url, '/api/files/42', 'a decimal string is accepted and normalised')
  await bff.files.get('999999999999999')
  await bff.files.get(999_999_999_999_999)
  t.same(sent.slice(1).map((request) => request.url), ['/api/files/999999999999999', '/api/files/999999999999999'], '15 digits are accepted')
})

t.test('api() takes paths relative to /api/ and refuses ones that would leave it', async (t) => {
  const sent = stubFetch(t)
  const bff = createMediaBffClient()
  await bff.api('GET', 'folders/0/contents?files=0')
  await bff.api('GET', '/folders/1')
  for (const path of ['', '../auth/session', 'folders/../../auth/logout', 'folders//1', 'folders/%2e%2e/x', 'folders\\1', 'a/./b', 'x#y']) {
    await t.rejects(bff.api('GET', path), { code: 'invalid_request', details: { field: 'path' } }, JSON.stringify(path))
  }
  await t.rejects(bff.api('GET', 'user/info', { a: 1 }), { code: 'invalid_request', details: { field: 'body' } })
  t.same(sent.map((request) => request.url), ['/api/folders/0/contents?files=0', '/api/folders/1'])
})

t.test('answers: contents always has arrays, an empty 204 is undefined, nonsense is bad_response', async (t) => {
  const answers = [json(200, { folder_id: 0, folders: 'nope', files: [{ file_id: 1 }, null, 3] }), new Response(null, { status: 204 }), new Response('<html>', { status: 200 })]
  stubFetch(t, () => answers.shift() ?? json(500, {}))
  const bff = createMediaBffClient()
  t.same(await bff.folders.contents(0), { folder_id: 0, folders: [], files: [{ file_id: 1 }] })
  t.equal(await bff.api('DELETE', 'files/1'), undefined)
  await t.rejects(bff.files.get(1), { status: 200, code: 'bad_response' })
})

t.test('refusals become MediaBffError with the contract code, details and the service\'s message', async (t) => {
  const answers = [
    json(403, { error: 'insufficient_scope', message: 'This needs your permission for manage.', required_scopes: ['manage'], reauthorize_url: '/auth/login?scope=basic+manage&return_to=%2F' }),
    json(409, { error: 'upstream_refused', message: 'The media service refused this.', upstream: { endpoint: 'folder_create', status: 409, error: 'folder_exists', user_message: 'A folder with this name already exists.', extra: { no: 1 } } }),
    json(401, { error: 'login_required', message: 'Sign in first.', login_url: '/auth/login' }),
    json(404, { error: 'not_found', message: 'There is no such file.' }),
    new Response('Bad gateway', { status: 502 })
  ]
  stubFetch(t, () => answers.shift() ?? json(500, {}))
  const bff = createMediaBffClient({ baseUrl: 'https://bff.example.test' })
  await t.rejects(bff.folders.create(0, 'x'), {
    status: 403,
    code: 'insufficient_scope',
    requiredScopes: ['manage'],
    reauthorizeUrl: 'https://bff.example.test/auth/login?scope=basic+manage&return_to=%2F'
  })
  const conflict = await bff.folders.create(0, 'Lectures').catch((error: unknown) => error)
  t.match(conflict, { status: 409, code: 'upstream_refused', message: 'A folder with this name already exists.' })
  t.same((conflict as MediaBffError).upstream, { endpoint: 'folder_create', status: 409, error: 'folder_exists', user_message: 'A folder with this name already exists.' })
  const signIn = await bff.userInfo().catch((error: unknown) => error)
  t.match(signIn, { code: 'login_required', needsSignIn: true, loginUrl: 'https://bff.example.test/auth/login' })
  await t.rejects(bff.files.get(7), { status: 404, code: 'not_found', message: 'There is no such file.', upstream: undefined })
  await t.rejects(bff.files.get(7), { status: 502, code: 'http_502' })
})

t.test('safeHttpUrl lets only absolute http(s) URLs through', async (t) => {
  t.equal(safeHttpUrl('https://media.example.test/share/1'), 'https://media.example.test/share/1')
  t.equal(safeHttpUrl('http://127.0.0.1:4000/x'), 'http://127.0.0.1:4000/x')
  for (const value of ['javascript:alert(1)', 'JAVASCRIPT:alert(1)', ' javascript:alert(1)', 'data:text/html,<b>', '/relative', '//host/x', 'ftp://host/x', '', 42, null, undefined]) {
    t.equal(safeHttpUrl(value), undefined, JSON.stringify(value))
  }
  t.equal(safeHttpUrl(`https://x.test/${'a'.repeat(5000)}`), undefined, 'an absurdly long URL')
})
