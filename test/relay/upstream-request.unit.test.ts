// What goes upstream is rebuilt from the allowlist: canonical numeric ids in the operation's own
// path, only its query parameters and body fields, encoded as the service's SDK encodes them.
import t from 'tap'
import fc from 'fast-check'
import { RELAY_OPERATIONS, type RelayOperation } from '../../src/relay/operations.js'
import { RelayInputError, bodyFromForm, upstreamRequestFor } from '../../src/relay/upstream-request.js'

function operation (name: string): RelayOperation {
  const found = RELAY_OPERATIONS.find((candidate) => candidate.name === name)
  if (found === undefined) throw new Error(`no operation ${name}`)
  return found
}

const call = (parts: { params?: Record<string, unknown>, query?: Record<string, unknown>, body?: unknown, headers?: Record<string, string> }) => ({
  params: parts.params ?? {},
  query: parts.query ?? {},
  body: parts.body,
  headers: parts.headers ?? {}
})

function refusal (make: () => unknown): RelayInputError | undefined {
  try {
    make()
  } catch (error) {
    if (error instanceof RelayInputError) return error
    throw error
  }
  return undefined
}

t.test('paths are the template with canonical ids', async (t) => {
  t.equal(upstreamRequestFor(operation('folder_contents'), call({ params: { folder_id: '007' } })).path, 'folders/7/contents')
  t.equal(upstreamRequestFor(operation('folder_contents'), call({ params: { folder_id: '0' }, query: { files: 'false', folders: true } })).path, 'folders/0/contents?folders=1&files=0')
  t.equal(upstreamRequestFor(operation('user_info'), call({})).path, 'user/info')
  t.equal(upstreamRequestFor(operation('oembed'), call({ query: { url: 'https://tenant.example/share/3?a=b&c' } })).path, 'oembed?url=https%3A%2F%2Ftenant.example%2Fshare%2F3%3Fa%3Db%26c')
})

t.test('any id that is not digits is refused; any that is gives a path of digits only', async (t) => {
  fc.assert(fc.property(fc.oneof(fc.string(), fc.stringMatching(/^\d{1,20}$/), fc.constantFrom('..', '%2e%2e', '1/../../oauth2/token', '0x1', '1e3', '-1', ' 1', '1 ')), (id) => {
    try {
      const { path } = upstreamRequestFor(operation('file_share'), call({ params: { file_id: id } }))
      t.match(path, /^files\/\d{1,15}\/share$/)
      t.ok(/^\d{1,15}$/.test(id))
    } catch (error) {
      t.ok(error instanceof RelayInputError, String(id))
    }
  }), { numRuns: 300 })
})

t.test('bodies: only the operation\'s fields, url-encoded; form lists accepted as name[]', async (t) => {
  const rename = upstreamRequestFor(operation('folder_rename'), call({ params: { folder_id: '4' }, body: { name: 'Talks & more' } }))
  t.equal(rename.form, 'name=Talks+%26+more')
  const link = operation('share_link')
  const fromJson = upstreamRequestFor(link, call({ body: { files: [3, '04'], download: true, expires: '2027-01-31' } }))
  t.equal(fromJson.form, 'files%5B%5D=3&files%5B%5D=4&download=1&expires=2027-01-31')
  t.equal(fromJson.path, 'files/0/share/link')
  const fromForm = upstreamRequestFor(link, call({ body: bodyFromForm(link, { 'files[]': '9', download: '0' }) }))
  t.equal(fromForm.form, 'files%5B%5D=9&download=0')
  const refused: Array<[string, RelayOperation, unknown]> = [
    ['an unknown field', operation('folder_rename'), { name: 'x', parent_id: 3 }],
    ['a missing name', operation('folder_create'), {}],
    ['an empty name', operation('folder_create'), { name: '' }],
    ['a too long title', operation('file_update'), { title: 'x'.repeat(256) }],
    ['no files', link, { files: [] }],
    ['a file id that is a path', link, { files: ['1/../2'] }],
    ['a flag that is not one', link, { files: [1], download: 'yes' }],
    ['an expiry that is not a time', link, { files: [1], expires: 'tomorrow' }]
  ]
  for (const [name, op, body] of refused) {
    t.throws(() => upstreamRequestFor(op, call({ params: { folder_id: '1', parent_id: '1', file_id: '1' }, body })), RelayInputError, name)
  }
  t.throws(() => upstreamRequestFor(operation('folder_contents'), call({ params: { folder_id: '1' }, query: { sort: 'name' } })), RelayInputError, 'an unknown query parameter')
  t.throws(() => upstreamRequestFor(operation('oembed'), call({ query: { url: 'javascript:alert(1)' } })), RelayInputError, 'oembed of a script URL')
})

t.test('a field named like an inherited property (constructor, toString, __proto__) is refused, naming it', async (t) => {
  const inherited = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__', 'isPrototypeOf']
  for (const name of inherited) {
    // JSON.parse makes __proto__ an own field, as Fastify's body parser does.
    const body = JSON.parse(`{"name":"x",${JSON.stringify(name)}:"y"}`) as Record<string, unknown>
    const inBody = refusal(() => upstreamRequestFor(operation('folder_rename'), call({ params: { folder_id: '4' }, body })))
    t.equal(inBody?.field, name, `body field ${name}`)
    const inForm = refusal(() => upstreamRequestFor(operation('folder_rename'), call({ params: { folder_id: '4' }, body: bodyFromForm(operation('folder_rename'), body) })))
    t.equal(inForm?.field, name, `form field ${name}`)
    const query = JSON.parse(`{${JSON.stringify(name)}:"1"}`) as Record<string, unknown>
    const inQuery = refusal(() => upstreamRequestFor(operation('folder_contents'), call({ params: { folder_id: '0' }, query })))
    t.equal(inQuery?.field, name, `query parameter ${name}`)
  }
})

t.test('If-None-Match is taken on GETs only, and only when it is plain and short; If-Modified-Since never', async (t) => {
  const get = upstreamRequestFor(operation('folder'), call({ params: { folder_id: '1' }, headers: { 'if-none-match': 'W/"a"', 'if-modified-since': 'Mon, 23 Nov 2026 10:00:00 GMT' } }))
  t.equal(get.ifNoneMatch, 'W/"a"', 'for the relay to check whose it is')
  t.notOk('ifModifiedSince' in get, 'a date is not passed on')
  t.equal(upstreamRequestFor(operation('folder'), call({ params: { folder_id: '1' }, headers: { 'if-none-match': `"${'a'.repeat(600)}"` } })).ifNoneMatch, undefined)
  t.equal(upstreamRequestFor(operation('folder_delete'), call({ params: { folder_id: '1' }, headers: { 'if-none-match': '"a"' } })).ifNoneMatch, undefined)
})

t.test('every operation has a scope the service defines and a path without dots or encodings', async (t) => {
  const names = new Set<string>()
  for (const op of RELAY_OPERATIONS) {
    t.ok(['basic', 'user.info', 'manage', 'upload', 'share'].includes(op.scope), `${op.name}: ${op.scope}`)
    t.match(op.path, /^[a-z0-9]+(\/([a-z0-9]+|:[a-z_]+))*$/, op.name)
    t.notOk(names.has(op.name), `${op.name} is unique`)
    names.add(op.name)
    t.notMatch(op.path, /^(oauth2|upload)\//, `${op.name} is not an OAuth or upload path`)
  }
})
