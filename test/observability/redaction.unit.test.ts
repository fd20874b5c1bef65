// The last look at every span before export (src/tracing/redaction.ts): what a secret may look
// like in an attribute, an event, a name or a status goes; everything else is left exactly as
// it was, the very same objects when there was nothing to take out.
import t from 'tap'
import fc from 'fast-check'
import type { ReadableSpan } from '@opentelemetry/sdk-trace'
import { REDACTED, Redactor } from '../../src/tracing/redaction.js'

const CLIENT_SECRET = 'client-secret-0123456789-abcdef'
const redactor = new Redactor([CLIENT_SECRET, undefined, 'short'])

t.test('query values, credentials and the configured secrets go from any text; names and paths stay', async (t) => {
  t.equal(redactor.text('GET /auth/callback?code=abc123&state=xyz'), `GET /auth/callback?code=${REDACTED}&state=${REDACTED}`)
  t.equal(redactor.text('https://upload.example/u/01HX?expires=1700000000&sig=deadbeef#top'), `https://upload.example/u/01HX?expires=${REDACTED}&sig=${REDACTED}#top`)
  t.equal(redactor.text('Authorization: Bearer eyJhbGciOi.abc-def_ghi'), `Authorization: Bearer ${REDACTED}`)
  t.equal(redactor.text('basic dXNlcjpwYXNz'), `basic ${REDACTED}`)
  t.equal(redactor.text(`the client secret is ${CLIENT_SECRET}!`), `the client secret is ${REDACTED}!`)
  t.equal(redactor.text('short'), 'short', 'a configured value under 16 characters is no secret worth searching for')
  t.equal(redactor.text('/api/folders/12/contents'), '/api/folders/12/contents', 'a path without a query is untouched')
  t.equal(redactor.text('upload_id answered 500'), 'upload_id answered 500')
})

t.test('attributes named for a secret lose their value; url.query keeps its names only', async (t) => {
  const attributes = {
    'http.request.header.authorization': ['Bearer x'],
    'http.response.header.set-cookie': ['media-bff=abc'],
    'http.request.header.cookie': 'a=b',
    'oauth.code': 'abc',
    'oauth.state': 'def',
    'upload.sig': 'x',
    'media_bff.refresh_token': 'y',
    'url.query': 'page=2&search=holidays',
    'url.full': 'http://127.0.0.1/api/folders/0/contents?search=x',
    'http.response.status_code': 200,
    'media_bff.webhook.id': '4b2e0c1e-0000-4000-8000-000000000000',
    'media_bff.sign_in.scopes': ['basic', 'upload']
  }
  t.same(redactor.attributes(attributes), {
    'http.request.header.authorization': REDACTED,
    'http.response.header.set-cookie': REDACTED,
    'http.request.header.cookie': REDACTED,
    'oauth.code': REDACTED,
    'oauth.state': REDACTED,
    'upload.sig': REDACTED,
    'media_bff.refresh_token': REDACTED,
    'url.query': `page=${REDACTED}&search=${REDACTED}`,
    'url.full': `http://127.0.0.1/api/folders/0/contents?search=${REDACTED}`,
    'http.response.status_code': 200,
    'media_bff.webhook.id': '4b2e0c1e-0000-4000-8000-000000000000',
    'media_bff.sign_in.scopes': ['basic', 'upload']
  })
  t.equal(redactor.attributes(attributes)?.['url.query'], `page=${REDACTED}&search=${REDACTED}`)
  t.equal(redactor.attributes({ 'url.query': '?a=1' })?.['url.query'], `?a=${REDACTED}`, 'with its "?" too')
  const clean = { 'http.route': '/uploads/register', 'media_bff.outcome': 'signed_in', 'media_bff.upload.folder_id': 0 }
  t.equal(redactor.attributes(clean), clean, 'nothing to take out: the very same object')
})

t.test('a span: its name, attributes, events, links and status; the same span when clean', async (t) => {
  const spanContext = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: 1 }
  const span = {
    name: 'GET /auth/callback?code=abc',
    kind: 1,
    spanContext: () => spanContext,
    attributes: { 'url.path': '/auth/callback' },
    events: [{ name: 'exception', time: [0, 0], attributes: { 'exception.message': `refused ${CLIENT_SECRET}` } }],
    links: [{ context: spanContext, attributes: { 'x.token': 'abc' } }],
    status: { code: 2, message: 'https://x.example/?sig=abc' }
  } as unknown as ReadableSpan
  const seen = redactor.span(span)
  t.equal(seen.name, `GET /auth/callback?code=${REDACTED}`)
  t.same(seen.events[0]?.attributes, { 'exception.message': `refused ${REDACTED}` })
  t.same(seen.links[0]?.attributes, { 'x.token': REDACTED })
  t.equal(seen.status.message, `https://x.example/?sig=${REDACTED}`)
  t.same(seen.spanContext(), spanContext, 'its context is the span\'s own')
  t.equal(span.name, 'GET /auth/callback?code=abc', 'the span itself is not changed')
  const clean = { ...span, name: 'POST /uploads/register', events: [], links: [], status: { code: 0 } } as unknown as ReadableSpan
  t.equal(redactor.span(clean), clean, 'nothing to take out: the very same span')
})

t.test('whatever a value around them, a query\'s values never survive', async (t) => {
  const value = fc.stringMatching(/^[A-Za-z0-9_~.%-]{16,64}$/)
  const name = fc.constantFrom('code', 'state', 'sig', 'token', 'x', 'p')
  fc.assert(fc.property(fc.string({ maxLength: 40 }), name, value, fc.string({ maxLength: 40 }), (before, param, secret, after) => {
    const cleaned = redactor.text(`${before}https://h.example/p?${param}=${secret}&z=1 ${after}`)
    return !cleaned.includes(secret) || before.includes(secret) || after.includes(secret)
  }), { numRuns: 500 })
})
