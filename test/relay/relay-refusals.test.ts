// The relay's errors against a hostile media service: the service's 4xx kept in the contract's
// shape, 5xx, redirects and nonsense 502, silence 504, and a 401 refreshed and retried once only
// when it says the token is invalid.
import t from 'tap'
import { startHostileRelay } from './hostile-relay.js'

const { service, signedIn } = await startHostileRelay(t)

t.test('refusals keep their status in the contract\'s shape; 5xx, redirects and nonsense are 502', async (t) => {
  const browser = await signedIn()
  const cases: Array<[string, () => { status?: number, headers?: Record<string, string>, body?: unknown }, number, string]> = [
    ['404', () => ({ status: 404, body: { error: 'not_found', error_description: 'No folder 5.' } }), 404, 'not_found'],
    ['409', () => ({ status: 409, body: { error: 'folder_exists', user_message: 'A folder with this name exists.' } }), 409, 'upstream_refused'],
    ['400', () => ({ status: 400, body: { error: 'invalid_name' } }), 400, 'invalid_request'],
    ['403', () => ({ status: 403, body: 'not json' }), 403, 'upstream_refused'],
    ['500', () => ({ status: 500, body: { error: 'boom', error_description: 'Database down' } }), 502, 'upstream_error'],
    ['302', () => ({ status: 302, headers: { location: 'https://elsewhere.example/' } }), 502, 'upstream_error'],
    ['HTML', () => ({ headers: { 'content-type': 'text/html' }, body: '<html>login</html>' }), 502, 'upstream_error'],
    ['broken JSON', () => ({ body: '{"folders": [' }), 502, 'upstream_error'],
    ['a bare string', () => ({ body: '"hello"' }), 502, 'upstream_error'],
    ['two documents', () => ({ body: '{}{}' }), 502, 'upstream_error'],
    ['over the cap by Content-Length', () => ({ headers: { 'content-length': String(5 * 1_048_576) }, body: 'x'.repeat(5 * 1_048_576) }), 502, 'upstream_error']
  ]
  for (const [name, make, status, error] of cases) {
    service.answer('library', make)
    const answer = await browser.get('/api/folders/5')
    t.equal(answer.status, status, `${name}: ${status}`)
    t.equal(answer.json().error, error, name)
    t.type(answer.json().message, 'string', name)
    if (status < 500) t.match(answer.json().upstream, { endpoint: 'folder', status }, `${name}: the service's status under upstream`)
  }
  service.answer('library', () => ({ status: 409, body: { error: 'folder_exists', user_message: 'A folder with this name exists.' } }))
  const refused = (await browser.get('/api/folders/5')).json()
  t.equal(refused.message, 'A folder with this name exists.', 'the service\'s words for a person')
  t.equal(refused.upstream.error, 'folder_exists')
  service.answer('library', () => ({ status: 409, body: { error: 'folder\u0000exists', error_description: 'x'.repeat(5000), user_message: 'A folder \u202Edetaerc\u202C\r\nexists.\u001b[2J' } }))
  const hostile = (await browser.get('/api/folders/5')).json()
  t.equal(hostile.message, 'A folder detaerc exists.[2J', 'control and bidirectional characters are stripped from the message')
  t.same(hostile.upstream, { endpoint: 'folder', status: 409, error: 'folderexists', error_description: 'x'.repeat(300), user_message: 'A folder detaerc exists.[2J' }, 'and from upstream, each field capped')

  service.answer('library', () => ({ status: 429, headers: { 'retry-after': '7' }, body: { error: 'slow_down' } }))
  const limited = await browser.get('/api/folders/5')
  t.equal(limited.status, 429)
  t.equal(limited.json().error, 'rate_limited')
  t.equal(limited.headers['retry-after'], '7')
})

t.test('a service that does not answer in time is a 504; the session is kept', async (t) => {
  const browser = await signedIn()
  service.answer('library', () => ({ write: () => { /* never answers */ } }))
  const slow = await browser.get('/api/folders/0')
  t.equal(slow.status, 504)
  t.equal(slow.json().error, 'upstream_timeout')
  service.answer('library', undefined)
  t.equal((await browser.get('/api/folders/0')).status, 200, 'still signed in')
})

t.test('a 401 refreshes the token once and retries; a second 401 is the service\'s fault', async (t) => {
  const browser = await signedIn()
  const before = service.refreshes()
  let calls = 0
  service.answer('library', () => ++calls === 1 ? { status: 401, body: { error: 'invalid_token' } } : { body: { folder_id: 0 } })
  const retried = await browser.get('/api/folders/0')
  t.equal(retried.status, 200)
  t.equal(service.refreshes(), before + 1, 'one refresh')
  t.equal(calls, 2)
  const tokens = service.received.filter((request) => request.path === '/api/folders/0').slice(-2).map((request) => request.authorization)
  t.not(tokens[0], tokens[1], 'the retry carries the new token')

  service.answer('library', () => ({ status: 401, body: { error: 'invalid_token' } }))
  const refused = await browser.get('/api/folders/0')
  t.equal(refused.status, 502)
  t.equal(refused.json().error, 'upstream_error')
})

t.test('only a 401 that says the token is invalid is retried after a refresh; any other 401 is a 502 at once, writes included', async (t) => {
  let issued = 0
  service.answer('token', () => ({ body: { access_token: `access-m${++issued}`, refresh_token: `refresh-m${issued}`, expires_in: 3600, scope: 'basic user.info manage' } }))
  const browser = await signedIn()
  const calls = (path: string): number => service.received.filter((request) => request.path === path).length
  // The token answer is this test's own (it grants manage), so refreshes are counted as received.
  const refreshes = (): number => service.received.filter((request) => request.path === '/api/oauth2/token' && request.body.includes('grant_type=refresh_token')).length
  // The challenge alone (RFC 6750), as an OAuth library answers a token it no longer accepts.
  let first = true
  service.answer('library', () => {
    const reject = first
    first = false
    return reject ? { status: 401, headers: { 'www-authenticate': 'Bearer realm="tenant", error="invalid_token", error_description="expired"' }, body: '' } : { body: { folder_id: 0 } }
  })
  const before = refreshes()
  t.equal((await browser.get('/api/folders/0')).status, 200, 'WWW-Authenticate: Bearer error="invalid_token" is retried')
  t.equal(refreshes(), before + 1, 'after one refresh')

  const others: Array<[string, { headers?: Record<string, string>, body?: unknown }]> = [
    ['no reason', { body: '' }],
    ['another OAuth error', { body: { error: 'insufficient_scope' } }],
    ['a Basic challenge', { headers: { 'www-authenticate': 'Basic realm="proxy"' }, body: { error: 'unauthorized' } }],
    ['invalid_token only in the description', { headers: { 'www-authenticate': 'Bearer error="invalid_request", error_description="not an invalid_token"' }, body: { error_description: 'invalid_token' } }]
  ]
  for (const [name, answer] of others) {
    service.answer('library', () => ({ status: 401, ...answer }))
    const refreshed = refreshes()
    const sent = calls('/api/folders/12')
    const write = await browser.fetch('PUT', '/api/folders/12', { headers: { 'x-csrf': '1' }, json: { name: 'Renamed' } })
    t.equal(write.status, 502, `${name}: 502`)
    t.equal(write.json().error, 'upstream_error', name)
    t.equal(calls('/api/folders/12') - sent, 1, `${name}: the write went up once`)
    t.equal(refreshes(), refreshed, `${name}: no refresh`)
  }
})
