// The relay against a hostile media service: what goes up carries the user's token and nothing
// of the browser's; what comes back is the service's JSON with its API links made local, an
// allowlist of headers and a size cap. Its refusals and failures: relay-refusals.test.ts.
import t from 'tap'
import { rawRequest } from '../hardening/raw-http.js'
import { startHostileRelay } from './hostile-relay.js'

const { service, bff, signedIn, lastLibraryCall } = await startHostileRelay(t)

t.test('only the token goes up: no cookie, no browser authorization, no CSRF header, no Origin', async (t) => {
  service.answer('token', () => ({ body: { access_token: 'access-900', refresh_token: 'refresh-900', expires_in: 3600, scope: 'basic user.info manage' } }))
  const browser = await signedIn()
  const answer = await browser.fetch('PUT', '/api/folders/12', {
    headers: { 'x-csrf': '1', origin: 'https://www.example.org', authorization: 'Basic c2VjcmV0', 'x-forwarded-for': '10.0.0.1', 'x-custom': 'leak' },
    json: { name: 'Renamed' }
  })
  t.equal(answer.status, 200)
  const call = lastLibraryCall()
  t.equal(call.method, 'PUT')
  t.equal(call.path, '/api/folders/12')
  t.match(call.authorization, /^Bearer access-\d+$/, 'the user\'s access token, not the browser\'s Authorization')
  for (const header of ['cookie', 'x-csrf', 'origin', 'referer', 'x-forwarded-for', 'x-custom']) t.notOk(header in call.headers, `${header} is not forwarded`)
  t.equal(call.headers['content-type'], 'application/x-www-form-urlencoded')
  t.equal(call.body, 'name=Renamed', 'the body rebuilt from the allowed field')

  const before = service.received.length
  const huge = await browser.fetch('PUT', '/api/folders/12', { headers: { 'x-csrf': '1' }, json: { name: 'x'.repeat(20_000) } })
  t.equal(huge.status, 413, 'a JSON body over BODY_LIMIT')
  t.equal(huge.json().error, 'payload_too_large')
  const hugeForm = await browser.fetch('PUT', '/api/folders/12', { headers: { 'x-csrf': '1', 'content-type': 'application/x-www-form-urlencoded' }, body: `name=${'x'.repeat(20_000)}` })
  t.equal(hugeForm.status, 413, 'a form body over BODY_LIMIT')
  const xml = await browser.fetch('PUT', '/api/folders/12', { headers: { 'x-csrf': '1', 'content-type': 'application/xml' }, body: '<name>x</name>' })
  t.equal(xml.status, 400, 'another body type')
  t.equal(xml.json().error, 'invalid_request')
  const proto = await browser.fetch('PUT', '/api/folders/12', { headers: { 'x-csrf': '1', 'content-type': 'application/x-www-form-urlencoded' }, body: 'name=x&__proto__=y' })
  t.equal(proto.status, 400, 'a form field outside the allowlist, even __proto__')
  t.equal(service.received.length, before, 'none of them reached the service')
})

t.test('names and titles with a control character or a bidirectional control are a 400 naming the field; nothing goes up', async (t) => {
  service.answer('token', () => ({ body: { access_token: 'access-901', refresh_token: 'refresh-901', expires_in: 3600, scope: 'basic user.info manage' } }))
  const browser = await signedIn()
  const before = service.received.length
  const cases: Array<[string, string, string]> = [
    ['/api/folders/12', 'name', 'Reports\u202Efdp.exe'],
    ['/api/folders/0', 'name', 'Next\u0085line'],
    ['/api/files/3', 'title', 'Isolated \u2067text\u2069'],
    ['/api/files/3', 'title', 'Arabic mark \u061C'],
    ['/api/folders/12', 'name', 'Tab\there']
  ]
  for (const [path, field, value] of cases) {
    const method = path === '/api/folders/0' ? 'POST' : 'PUT'
    for (const form of [false, true]) {
      const answer = form
        ? await browser.fetch(method, path, { headers: { 'x-csrf': '1', 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ [field]: value }).toString() })
        : await browser.fetch(method, path, { headers: { 'x-csrf': '1' }, json: { [field]: value } })
      const what = `${method} ${path} ${JSON.stringify(value)}${form ? ' (form)' : ''}`
      t.equal(answer.status, 400, what)
      t.match(answer.json(), { error: 'invalid_request', field, message: new RegExp(`${field} may not contain control characters or bidirectional`) }, what)
    }
  }
  t.equal(service.received.length, before, 'none reached the service')
})

t.test('the answer\'s headers are an allowlist: no Set-Cookie, no server banner; caching is private', async (t) => {
  const browser = await signedIn()
  service.answer('library', () => ({
    headers: { 'set-cookie': 'tenant_session=abc; Path=/', server: 'tenant/1.2', 'x-powered-by': 'PHP', etag: '"v1"', 'cache-control': 'public, max-age=3600', 'access-control-allow-origin': '*' },
    body: { folder_id: 3 }
  }))
  const answer = await browser.get('/api/folders/3')
  t.equal(answer.status, 200)
  t.same(answer.json(), { folder_id: 3 })
  t.same(answer.setCookies, [], 'no cookie from upstream')
  for (const header of ['server', 'x-powered-by', 'access-control-allow-origin']) t.notOk(header in answer.headers, `${header} stays upstream`)
  t.match(answer.headers.etag, /^W\/"[\w-]{22}\.ev1"$/, 'weak (the body was rewritten on the way), bound to the user, the service\'s strong tag inside')
  t.equal(answer.headers['cache-control'], 'private, no-cache', 'never stored by a shared cache, revalidated by the browser')
  t.equal(answer.headers.vary, 'Cookie', 'a browser keeps copies apart by cookie')
  t.equal(answer.headers['content-type'], 'application/json; charset=utf-8')
})

t.test('no-store passes; a Last-Modified travels inside the bound ETag and comes back as If-Modified-Since; the browser\'s own date never goes up', async (t) => {
  const browser = await signedIn()
  service.answer('library', () => ({ headers: { 'cache-control': 'private, no-store', 'last-modified': 'Mon, 23 Nov 2026 10:00:00 GMT' }, body: { folder_id: 4 } }))
  const answer = await browser.get('/api/folders/4', { 'if-modified-since': 'Sun, 22 Nov 2026 10:00:00 GMT' })
  t.equal(answer.headers['cache-control'], 'no-store', 'the service said no-store')
  t.equal(answer.headers['last-modified'], undefined, 'no date for the browser to revalidate with')
  t.equal(lastLibraryCall().headers['if-modified-since'], undefined, 'the browser\'s date was not sent up')
  const etag = String(answer.headers.etag)
  t.match(etag, /^W\/"[\w-]{22}\.d\d+"$/, 'the date, bound to the user')
  await browser.get('/api/folders/4', { 'if-none-match': etag })
  t.equal(lastLibraryCall().headers['if-modified-since'], 'Mon, 23 Nov 2026 10:00:00 GMT', 'translated back for this user')
  t.equal(lastLibraryCall().headers['if-none-match'], undefined)
})

t.test('conditional GETs pass through: If-None-Match up, 304 down', async (t) => {
  const browser = await signedIn()
  service.answer('library', (request) => request.headers['if-none-match'] === '"v2"'
    ? { status: 304, headers: { etag: '"v2"' } }
    : { headers: { etag: '"v2"' }, body: { folder_id: 0, folders: [] } })
  const first = await browser.get('/api/folders/0/contents')
  t.equal(first.status, 200)
  const second = await browser.get('/api/folders/0/contents', { 'if-none-match': String(first.headers.etag) })
  t.equal(second.status, 304)
  t.equal(second.text, '')
  t.equal(second.headers.etag, first.headers.etag, 'the same bound tag')
  t.equal(second.headers.vary, 'Cookie')
  t.equal(lastLibraryCall().headers['if-none-match'], '"v2"', 'the service\'s own tag went up')
})

t.test('links to the tenant\'s API are rewritten to media-bff\'s /api/, in both JSON spellings', async (t) => {
  const browser = await signedIn()
  const base = service.baseUrl
  service.answer('library', () => ({
    // PHP's json_encode escapes slashes: the same link must be found either way.
    body: `{"self":"${base}/api/folders/4","escaped":"${base.replaceAll('/', '\\/')}\\/api\\/files\\/9","share":"${base}/share/9","other":"https://elsewhere.example/api/x","deep":[{"u":"${base}/api/folders/4/contents?files=0"}],"walk":"${base}/api/../internal"}`
  }))
  const answer = await browser.get('/api/folders/4')
  t.equal(answer.status, 200)
  t.same(answer.json(), {
    self: `${bff.url}/api/folders/4`,
    escaped: `${bff.url}/api/files/9`,
    share: `${base}/share/9`,
    other: 'https://elsewhere.example/api/x',
    deep: [{ u: `${bff.url}/api/folders/4/contents?files=0` }],
    walk: `${base}/api/../internal`
  })
})

t.test('a long answer streams through, rewritten; past the cap it is cut off', async (t) => {
  const browser = await signedIn()
  const base = service.baseUrl
  const files = Array.from({ length: 3000 }, (_, i) => ({ file_id: i, title: `File ${i}`, urls: { file: `${base}/api/files/${i}` } }))
  service.answer('library', () => ({ body: { folder_id: 0, files } }))
  const answer = await browser.get('/api/folders/0/contents')
  t.equal(answer.status, 200)
  t.ok(answer.text.length > 200_000, `${answer.text.length} bytes`)
  t.equal(answer.json().files[2999].urls.file, `${bff.url}/api/files/2999`)
  t.equal(answer.headers['transfer-encoding'], 'chunked', 'streamed, not buffered whole')

  service.answer('library', () => ({
    write: (response) => {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.write('{"files":[')
      const row = `"${'x'.repeat(1000)}",`
      const flood = (): void => { while (response.write(row)) { /* fill the buffer */ } }
      response.on('drain', flood)
      flood()
    }
  }))
  const cut = await browser.get('/api/folders/0/contents').catch((error: Error) => error)
  // The status went out with the first 64 KiB, so the cap can only cut the body off.
  t.ok(cut instanceof Error, 'an endless answer never completes: the body is cut off')
  t.ok(bff.logs.some((line) => line.includes('a relayed answer failed while streaming')), 'the cut-off is logged')
})

t.test('outside the allowlist is 404, whatever the spelling; nothing reaches the service', async (t) => {
  const browser = await signedIn()
  const cookie = browser.cookieHeader() ?? ''
  const before = service.received.length
  const paths = [
    '/api/oauth2/token',
    '/api/oauth2/authorize',
    '/api/upload/id',
    '/api/__emulator/counters',
    '/api/folders/0/../../oauth2/token',
    '/api/folders/%2e%2e/oauth2/token',
    '/api/folders/%2E%2E%2Foauth2%2Ftoken/contents',
    '/api/folders/0%2f..%2f..%2foauth2%2ftoken',
    '/api/folders/..%2f..%2f__emulator%2fcounters',
    '/api/files/1%2f..%2f..%2f__emulator%2ftokens',
    '/api/./user/info',
    '/api//user/info',
    '/api/user/info/',
    '/api/USER/INFO',
    '/api/user%2finfo',
    '/api/folders/-1',
    '/api/folders/0x10',
    '/api/folders/1e3',
    '/api/folders/1.5',
    '/api/folders/%20',
    '/api/folders/1234567890123456',
    '/api/folders/0/contents/extra',
    '/api/files/0/share/link',
    '/api/oembed/../oauth2/token',
    '/api\\folders\\0',
    '/api/folders/0;a=b/contents'
  ]
  for (const path of paths) {
    const answer = await rawRequest(bff.url, `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${cookie}`)
    t.equal(answer.status, 404, path)
    t.equal(answer.json().error, 'not_found', path)
  }
  for (const [method, path] of [['POST', '/api/oauth2/token'], ['DELETE', '/api/upload/id/01JD3Z6Q4T8V2X7B9C5N1M0K2P'], ['POST', '/api/upload/file'], ['PATCH', '/api/folders/1'], ['POST', '/api/user/info']]) {
    const answer = await rawRequest(bff.url, `${method ?? ''} ${path ?? ''} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${cookie}\r\nX-CSRF: 1\r\nContent-Length: 0`)
    t.equal(answer.status, 404, `${method ?? ''} ${path ?? ''}`)
  }
  t.equal(service.received.length, before, 'the service received none of them')
})
