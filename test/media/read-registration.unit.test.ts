// Unit tests of the registration record's reading (src/media/read-registration.ts) and the
// tenant-URL check behind it (src/media/tenant-urls.ts): every URL media-bff will call with the
// user's token lies under the tenant's /api, whatever the service sends.
import t from 'tap'
import fc from 'fast-check'
import { readRegistration } from '../../src/media/read-registration.js'
import { underTenantApi } from '../../src/media/tenant-urls.js'
import { UpstreamError, UrlRefusedError } from '../../src/media/upstream-error.js'

const API = 'https://tenant.example/api'
const ULID = '01JD3Z6Q4T8V2X7B9C5N1M0K2P'
const NOW = 1_800_000_000_000
const record = (changes: Record<string, unknown> = {}): Record<string, unknown> => ({
  ulid: ULID,
  expires: NOW / 1000 + 600,
  expires_in: 600,
  url_upload_direct: 'https://upload.example/u?sig=1',
  api: { rel: 'upload', upload: 'https://upload.example/u?sig=1', finish: `${API}/upload/id/${ULID}` },
  ...changes
})

t.test('a well-formed record is read as it is', async (t) => {
  t.same(readRegistration(record(), API, NOW), {
    ulid: ULID,
    expires: NOW / 1000 + 600,
    expires_in: 600,
    url_upload_direct: 'https://upload.example/u?sig=1',
    api: { rel: 'upload', upload: 'https://upload.example/u?sig=1', finish: `${API}/upload/id/${ULID}` }
  })
})

t.test('expiry: expires_in, else what expires leaves, else an hour; never more than a day', async (t) => {
  t.equal(readRegistration(record({ expires_in: undefined }), API, NOW).expires_in, 600)
  t.equal(readRegistration(record({ expires_in: '120' }), API, NOW).expires_in, 120, 'a numeric string')
  t.equal(readRegistration(record({ expires_in: undefined, expires: undefined }), API, NOW).expires_in, 3600)
  t.equal(readRegistration(record({ expires_in: Number.NaN, expires: 'soon' }), API, NOW).expires_in, 3600)
  t.equal(readRegistration(record({ expires_in: -1, expires: NOW / 1000 - 5 }), API, NOW).expires_in, 3600)
  t.equal(readRegistration(record({ expires_in: 1e15 }), API, NOW).expires_in, 86_400)
  t.equal(readRegistration(record({ expires_in: 1.2 }), API, NOW).expires_in, 2, 'whole seconds, rounded up')
})

t.test('unusable records are the upstream\'s fault', async (t) => {
  const refused: Array<[string, unknown]> = [
    ['not an object', 'text'],
    ['null', null],
    ['an array', [record()]],
    ['no ulid', record({ ulid: undefined })],
    ['a ulid of the wrong alphabet', record({ ulid: 'IIIIIIIIIIIIIIIIIIIIIIIIII' })],
    ['a ulid that walks', record({ ulid: '../../../../../../../admin' })],
    ['no upload URL', record({ url_upload_direct: undefined })],
    ['an upload URL of 5000 characters', record({ url_upload_direct: `https://u.example/${'a'.repeat(5000)}` })],
    ['no api', record({ api: undefined })],
    ['finish elsewhere', record({ api: { finish: 'https://evil.example/api/upload/id/x' } })],
    ['finish outside /api', record({ api: { finish: 'https://tenant.example/admin' } })],
    ['finish on /apiary', record({ api: { finish: 'https://tenant.example/apiary/x' } })],
    ['finish over http', record({ api: { finish: 'http://tenant.example/api/upload/id/x' } })],
    // Under the tenant's /api/, but not this upload's finish: DELETE there would delete something else.
    ['finish on a folder', record({ api: { finish: `${API}/folders/12` } })],
    ['finish on a file', record({ api: { finish: `${API}/files/7` } })],
    ['finish on another upload', record({ api: { finish: `${API}/upload/id/01JD3Z6Q4T8V2X7B9C5N1M0K2Q` } })],
    ['finish with a query', record({ api: { finish: `${API}/upload/id/${ULID}?folder_id=3` } })],
    ['finish below the upload', record({ api: { finish: `${API}/upload/id/${ULID}/files` } })],
    ['finish walking back to it', record({ api: { finish: `${API}/folders/../upload/id/${ULID}x` } })]
  ]
  for (const [name, body] of refused) {
    // An address handed out and refused is a security event of its own (src/audit/).
    const handedOut = name.startsWith('finish ')
    t.throws(() => readRegistration(body, API, NOW), handedOut ? UrlRefusedError : UpstreamError, name)
    if (!handedOut) t.notOk((() => { try { readRegistration(body, API, NOW) } catch (error) { return error instanceof UrlRefusedError } })(), `${name}: no address refused`)
  }
  const withError = (() => { try { readRegistration({ error: 'forbidden', error_description: 'no' }, API, NOW) } catch (error) { return error } })() as UpstreamError
  t.equal(withError.failure, 'http', 'a service error body keeps its fields')
  t.same(withError.fields, { error: 'forbidden', error_description: 'no' })
})

t.test('api.finish is accepted in any spelling that means this upload\'s upload/id URL', async (t) => {
  for (const finish of [`${API}/upload/id/${ULID}`, `https://TENANT.example:443/api/upload/id/${ULID}`, `${API}/folders/../upload/id/${ULID}`]) {
    t.equal(readRegistration(record({ api: { finish } }), API, NOW).api.finish, `${API}/upload/id/${ULID}`, finish)
  }
})

t.test('api.upload and api.rel pass only when harmless', async (t) => {
  const read = readRegistration(record({ api: { finish: `${API}/upload/id/${ULID}`, upload: 'https://evil.example/', rel: '<script>' } }), API, NOW)
  t.same(read.api, { finish: `${API}/upload/id/${ULID}` })
})

t.test('underTenantApi: only URLs under the tenant\'s /api', async (t) => {
  t.equal(underTenantApi(`${API}/upload/id/1`, API), `${API}/upload/id/1`)
  t.equal(underTenantApi('https://TENANT.example:443/api/x', API), `${API}/x`, 'normalised')
  for (const value of [`${API}`, `${API}/../x`, `${API}/%2e%2e/x`, `${API}/a/%2F..%2F..%2Fx`, `${API}/a%5cb`, 'https://tenant.example.evil/api/x', 'https://tenant.example:8443/api/x', 'https://u:p@tenant.example/api/x', `${API}/x#frag`, 42, undefined, 'not a url']) {
    t.equal(underTenantApi(value, API), undefined, String(value))
  }
})

t.test('property: whatever the string, an accepted URL stays on the tenant\'s origin under /api/', async (t) => {
  const pieces = fc.constantFrom('/', '..', '.', '%2e', '%2f', '%5c', '\\', '@', ':', '#', '?', 'api', 'x', 'evil.example', 'tenant.example', '//', '%40')
  const candidates = fc.oneof(
    fc.array(pieces, { maxLength: 10 }).map((parts) => `https://tenant.example/api/${parts.join('')}`),
    fc.array(pieces, { maxLength: 10 }).map((parts) => `https://${parts.join('')}`),
    fc.webUrl()
  )
  fc.assert(fc.property(candidates, (value) => {
    const accepted = underTenantApi(value, API)
    if (accepted === undefined) return true
    const url = new URL(accepted)
    return url.origin === 'https://tenant.example' && url.pathname.startsWith('/api/') && !/%2f|%5c/i.test(url.pathname)
  }), { numRuns: 3000 })
  t.pass('3000 generated URLs')
})
