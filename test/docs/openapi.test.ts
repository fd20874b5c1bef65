// The OpenAPI description (plugins/docs.ts; docs/reference/http-api.md, "The OpenAPI description"):
// a standard OpenAPI 3.1 validator accepts it, and it says what media-bff does. One path per
// template; the security schemes it names are those media-bff enforces, on the operations that
// enforce them (asked of a running app: each operation without X-CSRF, then without a session or
// token); /events is a text/event-stream of the events a real channel sends; the webhook has its
// body and signature; the browser module is there. It is the same text whatever the configuration
// of the app that serves /docs, and the one `npm run openapi` writes.
import t from 'tap'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { Validator } from '@seriousme/openapi-schema-validator'
import { describeApi } from '../../src/app.js'
import { RELAY_OPERATIONS } from '../../src/relay/operations.js'
import { LIVE_EVENTS } from '../../src/events/live-events.js'
import { WEBHOOK_EVENTS } from '../../src/webhooks/read-webhook.js'
import { newSessionHandle } from '../../src/sessions/session-index.js'
import { build } from '../helpers/build.js'
import { startStack } from '../helpers/bff.js'
import { signIn } from '../helpers/sign-in.js'
import { openChannel } from '../helpers/event-stream.js'
import { nodeArgsFor } from '../helpers/loaded-as.js'
import { readClientModule } from '../../plugins/client-module.js'

type Requirement = Record<string, string[]>
interface Operation { tags?: string[], operationId?: string, security?: Requirement[], parameters?: Array<{ in: string, name: string }>, requestBody?: { required?: boolean, content: Record<string, { schema: any }> }, responses: Record<string, any> }

const text = await describeApi()
const description = JSON.parse(text) as { openapi: string, servers: any[], paths: Record<string, Record<string, Operation>>, components: { securitySchemes: Record<string, any>, schemas: Record<string, any> } }
const operations = Object.entries(description.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })))
/** Whether every way of calling the operation needs this scheme. */
const needs = (operation: Operation, scheme: string): boolean => (operation.security ?? [{}]).every((requirement) => Object.hasOwn(requirement, scheme))
const METRICS_TOKEN = 'metrics-token-0123456789-abcdefghijklmnop'
const OPERATOR_TOKEN = 'operator-token-0123456789-abcdefghijklmno'
const WEBHOOK_KEY = 'webhook-key-0123456789'

/** Values for path parameters that pass each route's own checks (ids: '1'). */
const PARAMETER_VALUES: Record<string, string> = {
  id: newSessionHandle(),
  ulid: '01J0000000000000000000000A',
  tenant: 'default',
  version: (await readClientModule()).version,
  file: 'media-bff-client.js'
}

t.test('a standard OpenAPI 3.1 validator accepts it, references and all', async (t) => {
  const validator = new Validator()
  const result = await validator.validate(JSON.parse(text))
  t.same(result.errors, undefined, 'no errors')
  t.equal(result.valid, true)
  t.equal(validator.version, '3.1')
  t.doesNotThrow(() => validator.resolveRefs(), 'every $ref resolves')
})

t.test('one path per template, each naming the parameters of its template', async (t) => {
  const templates = Object.keys(description.paths).map((path) => path.replace(/\{[^}]*\}/g, '{}'))
  t.same(templates.filter((template, i) => templates.indexOf(template) !== i), [], 'no two paths differ only in a parameter\'s name')
  for (const { path, method, operation } of operations) {
    const named = [...path.matchAll(/\{([^}]*)\}/g)].map((match) => match[1]).sort()
    const declared = (operation.parameters ?? []).filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name).sort()
    t.same(declared, named, `${method} ${path}`)
  }
  for (const op of RELAY_OPERATIONS) t.ok(description.paths[`/api/${op.path.replace(/:(\w+)/g, '{$1}')}`]?.[op.method.toLowerCase()], `${op.name} is there`)
})

t.test('for generators: every operation has its own readable operationId, and answers are named shapes', async (t) => {
  const ids = operations.map(({ operation }) => operation.operationId)
  t.same(operations.filter(({ operation }) => operation.operationId === undefined).map(({ method, path }) => `${method} ${path}`), [], 'every operation has one')
  t.same(ids.filter((id, i) => ids.indexOf(id) !== i), [], 'no two alike')
  t.same(ids.filter((id) => !/^[a-z]+(?:[A-Z][a-z]*)+$/.test(id ?? '')), [], 'verbs and nouns in lower camel case')
  const answerOf = (method: string, path: string): unknown => {
    const responses = description.paths[path]?.[method.toLowerCase()]?.responses ?? {}
    return (responses['200'] ?? responses['2XX'])?.content?.['application/json']?.schema
  }
  t.match(answerOf('GET', '/auth/session'), { $ref: '#/components/schemas/Session' })
  t.match(answerOf('POST', '/uploads/register'), { $ref: '#/components/schemas/UploadRegistration' })
  t.match(description.components.schemas.Session, { anyOf: [{ $ref: '#/components/schemas/SignedInSession' }, { $ref: '#/components/schemas/SignedOutSession' }] })
  const relayedReads = RELAY_OPERATIONS.filter((operation) => operation.method === 'GET')
  for (const operation of relayedReads) {
    const path = `/api/${operation.path.replace(/:(\w+)/g, '{$1}')}`
    t.match(answerOf('GET', path), { $ref: /^#\/components\/schemas\/(MediaUserInfo|Folder|FolderContents|MediaFile|ShareInfo|OEmbed)$/ }, `${operation.name}: a named shape, not "any JSON"`)
  }
  t.match(description.components.schemas.FolderContents, { properties: { files: { items: { $ref: '#/components/schemas/MediaFile' } } } }, 'shapes refer to each other by name')
})

t.test('every answer is described: what it means for its route, its media types, a redirect its Location', async (t) => {
  const undescribed: string[] = []
  for (const { path, method, operation } of operations) {
    for (const [status, response] of Object.entries(operation.responses)) {
      const name = `${method} ${path} ${status}`
      if (typeof response.description !== 'string' || response.description === 'Default Response' || response.description.length < 10) undescribed.push(name)
      const headers = Object.values(response.headers ?? {}) as Array<{ schema: Record<string, unknown> }>
      t.notOk(headers.some((header) => Object.hasOwn(header.schema, 'x-required')), `${name}: a header's required is the header's`)
      if (/^3\d\d$/.test(status) && status !== '304') t.match(response.headers?.Location, { required: true, schema: { type: 'string', format: 'uri-reference' } }, `${name}: where to`)
      if (/^[45]/.test(status) && path !== '/auth/callback' && path !== '/readyz') t.same(response.content, { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } }, `${name}: the contract's error`)
    }
  }
  t.same(undescribed, [], 'no answer without a description of its own')
  t.same(Object.keys(description.paths['/auth/callback']?.get?.responses ?? {}).sort(), ['200', '302', '400', '429', '503'], 'the callback: its redirect, its popup\'s last page, its pages, its refusals')
  t.same(Object.keys(description.paths['/auth/callback']?.get?.responses['503'].content).sort(), ['application/json', 'text/html'], 'its 503 a page, or the contract\'s error before it')
})

t.test('the security schemes: the session cookie, X-CSRF and the operators\' bearer tokens, all that operations name', async (t) => {
  const schemes = description.components.securitySchemes
  t.match(schemes.sessionCookie, { type: 'apiKey', in: 'cookie', name: '__Host-Http-media-bff' })
  t.match(schemes.csrfHeader, { type: 'apiKey', in: 'header', name: 'X-CSRF' })
  t.match(schemes.metricsBearer, { type: 'http', scheme: 'bearer' })
  t.match(schemes.operatorBearer, { type: 'http', scheme: 'bearer' })
  const named = new Set(operations.flatMap(({ operation }) => (operation.security ?? []).flatMap((requirement) => Object.keys(requirement))))
  t.same([...named].sort(), Object.keys(schemes).sort(), 'each is used, and nothing else is named')
  const withoutCsrf = operations.filter(({ operation }) => !needs(operation, 'csrfHeader')).map(({ method, path }) => `${method} ${path}`).sort()
  t.same(withoutCsrf, [
    'DELETE /auth/check/{*}',
    'DELETE /operator/users/{tenant}/{user_id}/sessions',
    'GET /.well-known/jwks.json',
    'GET /auth/callback',
    'GET /auth/check',
    'GET /auth/check/{*}',
    'GET /auth/login',
    'GET /auth/popup.js',
    'GET /client/{file}',
    'GET /client/{version}/{file}',
    'GET /docs',
    'GET /healthz',
    'GET /metrics',
    'GET /readyz',
    'PATCH /auth/check/{*}',
    'POST /auth/check/{*}',
    'POST /webhooks/media',
    'POST /webhooks/media/{tenant}',
    'PUT /auth/check/{*}'
  ], 'X-CSRF on every call a page makes, reads included; none on navigations, proxies\' checks, servers\' calls, operators\' routes and public files')
  for (const op of RELAY_OPERATIONS) {
    const operation = description.paths[`/api/${op.path.replace(/:(\w+)/g, '{$1}')}`]?.[op.method.toLowerCase()]
    t.same(operation?.security, [{ sessionCookie: [op.scope], csrfHeader: [] }], `${op.name}: the cookie, with its scope as its role, and X-CSRF`)
  }
})

t.test('what each operation says it needs is what media-bff refuses without', async (t) => {
  const stack = await build(t, { env: { WEBHOOK_KEYS: WEBHOOK_KEY, METRICS_TOKEN, OPERATOR_TOKEN } })
  const url = (path: string): string => path.replace(/\{(\w+)\}/g, (_all, name: string) => PARAMETER_VALUES[name] ?? '1')
  const call = async (method: string, path: string, operation: Operation, headers: Record<string, string>): Promise<{ status: number, error: unknown }> => {
    const body = operation.requestBody?.content['application/json']?.schema
    const answer = await stack.app.inject({ method: method as 'GET', url: url(path), headers, ...(body === undefined ? {} : { payload: exampleOf(body) as object }) })
    let error: unknown
    try { error = (JSON.parse(answer.body) as { error?: unknown }).error } catch {}
    return { status: answer.statusCode, error }
  }
  for (const { path, method, operation } of operations) {
    const name = `${method} ${path}`
    const withoutCsrf = await call(method, path, operation, {})
    if (needs(operation, 'csrfHeader')) t.same(withoutCsrf, { status: 403, error: 'csrf_failed' }, `${name}: refused without X-CSRF, as described`)
    else t.not(withoutCsrf.error, 'csrf_failed', `${name}: no X-CSRF described, none asked`)

    const anonymous = await call(method, path, operation, { 'x-csrf': '1' })
    if (needs(operation, 'sessionCookie')) t.same(anonymous, { status: 401, error: 'login_required' }, `${name}: a session, as described`)
    else t.not(anonymous.error, 'login_required', `${name}: no session described, none needed`)
    const bearer = operation.security?.find((requirement) => Object.hasOwn(requirement, 'metricsBearer') || Object.hasOwn(requirement, 'operatorBearer'))
    if (bearer === undefined) {
      t.not(anonymous.status, 404, `${name}: not hidden from those without a token`)
      continue
    }
    // The metrics token is optional only where METRICS_TOKEN is unset; it is set here.
    t.equal(anonymous.status, 404, `${name}: looks absent without the operators' token`)
    const token = Object.hasOwn(bearer, 'metricsBearer') ? METRICS_TOKEN : OPERATOR_TOKEN
    t.not((await call(method, path, operation, { 'x-csrf': '1', authorization: `Bearer ${token}` })).status, 404, `${name}: answers with it`)
  }
})

t.test('/events: a text/event-stream of its events, shaped as a real channel sends them', async (t) => {
  const stream = description.paths['/events']?.get?.responses['200']?.content?.['text/event-stream']?.schema as { anyOf: any[] }
  const kinds = stream.anyOf.map((event) => event.properties.event.enum[0] as string)
  t.same(kinds.sort(), ['ready', ...Object.keys(LIVE_EVENTS), 'resync', 'closed'].sort(), 'every kind of event, the bus\'s included')
  const shapeOf = (kind: string): any => stream.anyOf.find((event) => event.properties.event.enum[0] === kind)
  for (const event of stream.anyOf) {
    t.match(event.properties.data, { type: 'string', contentMediaType: 'application/json', contentSchema: { $ref: /^#\/components\/schemas\/Live/ } }, `${String(event.title)}: its data, a named shape`)
  }
  const dataOf = (kind: string): any => named(shapeOf(kind).properties.data.contentSchema)

  const stack = await startStack()
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  await signIn(browser)
  const channel = await openChannel(browser)
  t.teardown(channel.close)
  const [ready] = channel.data('ready')
  t.ok(fits(ready, dataOf('ready')), 'ready, as described')
  t.not(channel.events[0]?.lastEventId ?? '', '', 'with its id')
  await browser.post('/auth/logout', undefined, { 'x-csrf': '1' })
  const [ended] = await channel.waitFor('session')
  t.ok(fits(ended, dataOf('session')), `session, as described: ${JSON.stringify(ended)}`)
  t.notOk(fits({ ended: true, reason: 'some other' }, dataOf('session')), 'and the shape tells one apart from what it is not')
})

t.test('the webhook: its body, with the signature in it; no session, no X-CSRF', async (t) => {
  for (const path of ['/webhooks/media', '/webhooks/media/{tenant}']) {
    const operation = description.paths[path]?.post
    t.equal(operation?.security, undefined, `${path}: server to server`)
    t.notOk(operation?.parameters?.some((parameter) => parameter.in === 'header'), 'no header carries anything')
    const body = operation?.requestBody
    t.equal(body?.required, true)
    const schema = body?.content['application/json']?.schema
    t.match(schema, { type: 'object', required: ['signature', 'id', 'event'] })
    t.match(schema?.properties.signature, { type: 'object', required: ['timestamp', 'token', 'signature'] })
    t.match(schema?.properties.signature.properties.signature.description, /HMAC-SHA256.*WEBHOOK_KEYS/)
    t.same(schema?.properties.event.enum, WEBHOOK_EVENTS)
  }
})

t.test('the browser module: its current version and each version, open to all', async (t) => {
  const current = description.paths['/client/{file}']?.get
  const versioned = description.paths['/client/{version}/{file}']?.get
  for (const operation of [current, versioned]) {
    t.equal(operation?.security, undefined, 'no security')
    t.ok(operation?.responses['200'].content['text/javascript'], 'the module')
    t.ok(operation?.responses['200'].content['text/plain'], 'its types')
  }
  t.ok(current?.responses['304'], 'revalidated')
  t.match(versioned?.responses['200'].description, /another replica's/, 'another replica\'s version: the current module, uncached')
  // The parameters are described, not constrained: an unknown file is still the handler's 404.
  const stack = await build(t)
  t.equal((await stack.inject({ method: 'GET', url: '/client/other.js' })).statusCode, 404)
  t.equal((await stack.inject({ method: 'GET', url: '/client/media-bff-client.js' })).statusCode, 200)
})

t.test('the same description whatever the configuration, byte for byte', async (t) => {
  const elsewhere = await build(t, {
    env: {
      WEBHOOK_PATH: '/hooks/media',
      WEBHOOK_KEYS: `north:${WEBHOOK_KEY}`,
      MEDIA_TENANTS: 'north=http://127.0.0.1:9,south=http://127.0.0.1:9',
      MEDIA_BASE_URL: undefined,
      METRICS_TOKEN,
      SESSION_COOKIE_NAME: 'other',
      DEMO_SITE: 'on'
    }
  })
  const plain = await build(t)
  const mounted = await build(t, { env: { BASE_PATH: '/media-bff' } })
  const served = await elsewhere.inject({ method: 'GET', url: '/docs', headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
  const servedPlain = await plain.inject({ method: 'GET', url: '/docs' })
  const servedMounted = await mounted.inject({ method: 'GET', url: '/media-bff/docs' })
  t.equal(served.body, text, 'two tenants, another webhook path, a metrics token, the demo: the same text')
  t.equal(servedPlain.body, text, 'no webhooks, no operators\' lever: the same text')
  t.equal(servedMounted.body, text, 'under BASE_PATH: the same text')
  const ownPaths = Object.keys(mounted.app.swagger().paths ?? {})
  t.ok(ownPaths.includes('/events') && ownPaths.every((path) => !path.startsWith('/media-bff')), 'even an app\'s own collection keeps the routes\' paths under BASE_PATH')
  t.match(served.headers['content-type'], /^application\/json/)
  t.ok(description.paths['/webhooks/media'] !== undefined && description.paths['/hooks/media'] === undefined, 'the webhooks at their default path')
  t.ok(description.paths['/operator/users/{tenant}/{user_id}/sessions'] !== undefined, 'the lever, though this app has none')
  t.match(description.servers, [{ url: '{origin}{basePath}', variables: { basePath: { default: '' } } }], 'where media-bff is mounted is the server\'s, not the paths\'')
  t.ok(Object.keys(description.paths).every((path) => /^\/(auth|uploads|api|events|webhooks|client|operator|healthz|readyz|metrics|docs|\.well-known)\b/.test(path)), 'paths as the routes declare them')
})

t.test('`npm run openapi` writes the same text to the file named', async (t) => {
  const file = `${t.testdir()}/openapi.json`
  const root = fileURLToPath(new URL('../../', import.meta.url))
  const child = spawn(process.execPath, [...nodeArgsFor('src/openapi'), file], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] })
  let printed = ''
  child.stdout.on('data', (chunk: Buffer) => { printed += chunk.toString('utf8') })
  const [code] = await once(child, 'exit') as [number | null]
  t.equal(code, 0)
  t.equal(printed, `${file}\n`, 'and prints where')
  t.equal(await readFile(file, 'utf8'), text)
})

/** The named shape a reference points at. */
function named (schema: { $ref: string }): any {
  return description.components.schemas[schema.$ref.replace('#/components/schemas/', '')]
}

/** A smallest value of the (request body) schema: its required fields, each the simplest it may be. */
function exampleOf (schema: any): unknown {
  if (typeof schema.$ref === 'string') return exampleOf(description.components.schemas[schema.$ref.replace('#/components/schemas/', '')])
  if (Array.isArray(schema.anyOf)) return exampleOf(schema.anyOf[0])
  switch (schema.type) {
    case 'object': return Object.fromEntries((schema.required ?? []).map((name: string) => [name, exampleOf(schema.properties[name])]))
    case 'array': return Array.from({ length: schema.minItems ?? 1 }, () => exampleOf(schema.items))
    case 'integer': case 'number': return schema.minimum ?? 0
    case 'boolean': return true
    default: return 'x'
  }
}

/** Whether a parsed event's data fits the described object: its required fields, no others, enumerated values among theirs. */
function fits (data: Record<string, unknown> | undefined, schema: { required?: string[], properties: Record<string, { enum?: unknown[], type?: string }> }): boolean {
  if (data === undefined) return false
  return (schema.required ?? []).every((name) => Object.hasOwn(data, name)) &&
    Object.entries(data).every(([name, value]) => {
      const property = schema.properties[name]
      if (property === undefined) return false
      if (property.enum !== undefined && !property.enum.includes(value)) return false
      return property.type === undefined || property.type === (Number.isInteger(value) ? 'integer' : typeof value)
    })
}
