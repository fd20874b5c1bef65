// A contract tester: it reads the OpenAPI description media-bff serves (GET /docs) and drives
// every operation of it over HTTP, in front of the real emulator, with inputs made from the
// operation's own schemas (schema-values.ts, fixed seeds): valid ones, and wrong ones (a required
// field missing, a field of another type, a field too many, a string too long, a number out of
// range, a bad path parameter, a body that is not JSON or not JSON at all), signed out, signed in
// with every scope and with fewer, with and without X-CSRF and the operators' tokens where the
// operation names them. Every answer is held to the description (answers.ts): a declared status
// (never a 500), a declared media type, a body that fits, the declared headers. Valid inputs start
// from values that exist (the emulator's folders, files uploaded here, a registration, another
// session, a sign-in walked to its callback, a signed webhook), so each operation also answers
// with success, and its schema is held to that answer too.
import t, { type Test } from 'tap'
import { request } from 'undici'
import type { AddressInfo } from 'node:net'
import { randomBytes } from 'node:crypto'
import fastifyCookie from '@fastify/cookie'
import { build, type Built } from '../helpers/build.js'
import { UNLIMITED_RATES } from '../helpers/bff.js'
import { uploadDirect } from '../helpers/direct-upload.js'
import { signedWebhook } from '../helpers/webhooks.js'
import { consent } from '../helpers/sign-in.js'
import { readClientModule } from '../../plugins/client-module.js'
import { StoreUnavailableError } from '../../src/store/key-value-store.js'
import { answerChecker, type Answer, type Description } from './answers.js'
import { breakagesOf, samplesOf, type Schema } from './schema-values.js'

const METRICS_TOKEN = 'metrics-token-0123456789-abcdefghijklmnop'
const OPERATOR_TOKEN = 'operator-token-0123456789-abcdefghijklmno'
const WEBHOOK_KEY = 'webhook-key-0123456789'
const EVERY_SCOPE = ['basic', 'user.info', 'manage', 'upload', 'share']
/** Where the built app pretends to be (test/helpers/build.ts): the emulator sends sign-ins back there. */
const PUBLIC_URL = 'http://127.0.0.1:3000'
/** Valid inputs per operation: the first from values that exist, the rest as the schemas make them. */
const VALID_SAMPLES = 3
const SEED = 20_260_601

interface Parameter { in: 'path' | 'query' | 'header' | 'cookie', name: string, required?: boolean, schema: Schema }
interface Operation {
  operationId: string
  security?: Array<Record<string, string[]>>
  parameters?: Parameter[]
  requestBody?: { required?: boolean, content: Record<string, { schema: Schema }> }
  responses: Record<string, unknown>
}
interface Described { path: string, method: string, operation: Operation }

/** One request, before the credentials of its variant are added. */
interface Input {
  name: string
  path: Record<string, string>
  query: Record<string, unknown>
  headers: Record<string, string>
  body?: { type: string, text: string }
  cookies?: string[]
}

/** Who sends it. */
interface Credentials {
  name: string
  user: 'alice' | 'bob' | undefined
  csrf: boolean
  bearer: boolean
}

t.test('every operation of the description, driven with valid and wrong inputs, answers as described', async (t) => {
  const started = Date.now()
  const built = await build(t, {
    env: {
      WEBHOOK_KEYS: WEBHOOK_KEY,
      METRICS_TOKEN,
      OPERATOR_TOKEN,
      OAUTH_SCOPES: EVERY_SCOPE.join(' '),
      ...UNLIMITED_RATES,
      RATE_LIMIT_SESSIONS_PER_MINUTE: '100000',
      RATE_LIMIT_EVENTS_PER_MINUTE: '100000',
      RATE_LIMIT_WEBHOOKS_PER_MINUTE: '100000'
    },
    emulator: { redirectUri: `${PUBLIC_URL}/auth/callback` }
  })
  // Over HTTP, as a contract tester calls a server (and a live channel needs a socket).
  await built.app.listen({ host: '127.0.0.1', port: 0 })
  const origin = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`
  const send = async (method: string, target: string, headers: Record<string, string>, body?: string): Promise<Answer> => {
    const response = await request(`${origin}${target}`, { method: method as 'GET', headers, body })
    return { status: response.statusCode, headers: response.headers, body: await response.body.text() }
  }

  const served = await send('GET', '/docs', { authorization: `Bearer ${METRICS_TOKEN}` })
  t.equal(served.status, 200, 'the description, as the app serves it')
  const description = JSON.parse(served.body) as Description & { paths: Record<string, Record<string, Operation>> }
  const check = answerChecker(description)
  const resolve = (schema: Schema): Schema => typeof schema.$ref === 'string' ? resolve(description.components.schemas[schema.$ref.replace('#/components/schemas/', '')] as Schema) : schema
  const operations: Described[] = Object.entries(description.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })))
  const existing = await existingValues(t, built, send)

  let calls = 0
  let inputsTried = 0
  const seen = new Map<string, Set<string>>()
  /**
   * Sends the input with these credentials (a session of its own for each call) and holds the
   * answer to the description; `existing`: the input is to be made of values that exist, for
   * this caller.
   */
  const drive = async (t: Test, described: Described, given: Input, who: Credentials, exists = false): Promise<void> => {
    const { path, method, operation } = described
    const cookie = who.user === undefined ? undefined : await built.signIn(who.user, who.user === 'alice' ? EVERY_SCOPE : ['basic', 'user.info'])
    const input = exists ? await existing.applied(described, given, who.user === 'alice' ? cookie : undefined) : given
    const headers: Record<string, string> = { ...input.headers }
    const cookies = [...(cookie === undefined ? [] : [cookie]), ...(input.cookies ?? [])]
    if (cookies.length > 0) headers.cookie = cookies.join('; ')
    if (who.csrf) headers['x-csrf'] = '1'
    if (who.bearer) headers.authorization = `Bearer ${bearerOf(operation) === 'operatorBearer' ? OPERATOR_TOKEN : METRICS_TOKEN}`
    if (input.body !== undefined) headers['content-type'] = input.body.type
    const target = `${path.replace(/\{(\w+)\}/g, (_all, name: string) => encodeURIComponent(input.path[name] ?? ''))}${queryOf(input.query)}`
    calls++
    const answer = isStream(operation)
      ? await streamed(`${origin}${target}`, headers, async () => { if (cookie !== undefined) await send('POST', '/auth/logout', { cookie, 'x-csrf': '1' }) })
      : await send(method, target, headers, input.body?.text)
    const held = (answer: Answer, what: string): void => {
      const statuses = seen.get(`${method} ${path}`) ?? new Set<string>()
      statuses.add(String(answer.status))
      seen.set(`${method} ${path}`, statuses)
      const problems = check(path, method, answer)
      if (problems.length > 0) t.fail(`${method} ${target} (${what}; ${who.name}) → ${answer.status}`, { problems })
      else t.pass(`${method} ${path} (${what}; ${who.name}) → ${answer.status}`)
    }
    held(answer, input.name)
    // A read that gave its validator, asked again with it: Not Modified, as described.
    const etag = answer.headers.etag
    if (method === 'GET' && answer.status === 200 && typeof etag === 'string') {
      calls++
      held(await send(method, target, { ...headers, 'if-none-match': etag }), `${input.name}, If-None-Match`)
    }
  }

  for (const described of operations) {
    const { path, method, operation } = described
    await t.test(`${method} ${path}`, async (t) => {
      const seed = SEED + [...operation.operationId].reduce((sum, char) => sum + char.charCodeAt(0), 0)
      const parameters = operation.parameters ?? []
      const body = operation.requestBody?.content['application/json']?.schema
      const objectOf = (where: Parameter['in']): Schema => ({
        type: 'object',
        properties: Object.fromEntries(parameters.filter((parameter) => parameter.in === where).map((parameter) => [parameter.name, parameter.schema])),
        required: parameters.filter((parameter) => parameter.in === where && parameter.required === true).map((parameter) => parameter.name)
      })
      const sampled = (schema: Schema, salt: number): Array<Record<string, unknown>> => samplesOf(schema, resolve, seed + salt, VALID_SAMPLES) as Array<Record<string, unknown>>
      const paths = sampled(objectOf('path'), 1)
      const queries = sampled(objectOf('query'), 2)
      const headerValues = sampled(objectOf('header'), 3)
      const bodies = body === undefined ? [] : sampled(body, 4)
      const inputOf = (i: number, name: string): Input => ({
        name,
        path: texts(paths[i] ?? {}),
        query: queries[i] ?? {},
        headers: texts(headerValues[i] ?? {}),
        ...(body === undefined ? {} : { body: { type: 'application/json', text: JSON.stringify(bodies[i]) } })
      })

      const valid: Input[] = []
      for (let i = 0; i < VALID_SAMPLES; i++) valid.push(inputOf(i, i === 0 ? 'valid, of values that exist' : `valid, as generated (${i})`))
      const variants = credentialsOf(operation)
      // The first valid input is made of values that exist afresh for each call: an upload
      // registered, a folder made to be deleted, a sign-in walked to its callback.
      for (const who of variants) {
        inputsTried++
        await drive(t, described, valid[0] as Input, who, true)
      }
      if (operation.requestBody?.content['application/x-www-form-urlencoded'] !== undefined) {
        const form = await existing.applied(described, valid[0] as Input, undefined)
        inputsTried++
        await drive(t, described, { ...form, name: 'valid, url-encoded', ...(form.body === undefined ? {} : { body: { type: 'application/x-www-form-urlencoded', text: formOf(JSON.parse(form.body.text) as Record<string, unknown>) } }) }, FULL)
      }
      for (const input of valid.slice(1)) {
        for (const who of variants) {
          inputsTried++
          await drive(t, described, input, who)
        }
      }

      // Wrong inputs break the valid one of values that exist, so only what is broken is wrong.
      const base = await existing.applied(described, valid[0] as Input, undefined)
      const wrong: Input[] = []
      const pathSchema = objectOf('path')
      for (const name of Object.keys(pathSchema.properties as object)) {
        for (const bad of ['not-an-id', '-1', '0'.repeat(300), '../..', ' ']) wrong.push({ ...base, name: `path ${name} "${bad.slice(0, 12)}"`, path: { ...base.path, [name]: bad } })
      }
      for (const broken of breakagesOf(objectOf('query'), resolve, base.query)) wrong.push({ ...base, name: `query ${broken.name}`, query: broken.value })
      const headerSchema = objectOf('header')
      for (const name of Object.keys(headerSchema.properties as object)) {
        for (const bad of ['has spaces', 'x'.repeat(65)]) wrong.push({ ...base, name: `header ${name} "${bad.slice(0, 12)}"`, headers: { ...base.headers, [name]: bad } })
      }
      if (body !== undefined) {
        const validBody = JSON.parse(base.body?.text ?? '{}') as Record<string, unknown>
        for (const broken of breakagesOf(body, resolve, validBody)) wrong.push({ ...base, name: `body ${broken.name}`, body: { type: 'application/json', text: JSON.stringify(broken.value) } })
      }
      if (method !== 'GET') {
        wrong.push({ ...base, name: 'a body that is not JSON', body: { type: 'application/json', text: '{"not json' } })
        wrong.push({ ...base, name: 'a body of another media type', body: { type: 'text/plain', text: 'hello' } })
        wrong.push({ ...base, name: 'an empty JSON body', body: { type: 'application/json', text: '' } })
        wrong.push({ ...base, name: 'a body over every limit', body: { type: 'application/json', text: JSON.stringify({ padding: 'x'.repeat(70 * 1024) }) } })
      }
      for (const input of wrong) {
        for (const who of [FULL, ANONYMOUS]) {
          inputsTried++
          await drive(t, described, input, who)
        }
      }
    })
  }

  await t.test('every operation answered with success at least once, so its success is held to the description too', async (t) => {
    for (const { path, method } of operations) {
      const statuses = [...seen.get(`${method} ${path}`) ?? []]
      t.ok(statuses.some((status) => /^[23]/.test(status)), `${method} ${path}: ${statuses.sort().join(', ')}`)
    }
  })

  await t.test('with the session store out of reach, every operation still answers as described', async (t) => {
    const people = built.app.stores.people
    const get = people.get.bind(people)
    people.get = async () => { throw new StoreUnavailableError('the test holds the store down') }
    t.teardown(() => { people.get = get })
    const signer = new fastifyCookie.Signer(built.config.session.secrets, 'sha256')
    // A cookie correctly signed makes the session plugin read the store.
    const cookie = `${built.config.session.cookieName}=${signer.sign(randomBytes(24).toString('base64url'))}`
    for (const { path, method, operation } of operations) {
      const target = path.replace(/\{(\w+)\}/g, '1')
      const answer = await send(method, target, { cookie, 'x-csrf': '1', ...(bearerOf(operation) === undefined ? {} : { authorization: `Bearer ${bearerOf(operation) === 'operatorBearer' ? OPERATOR_TOKEN : METRICS_TOKEN}` }) })
      calls++
      const name = `${method} ${path}`
      t.same(check(path, method, answer), [], `${name} → ${answer.status}`)
    }
  })

  const seconds = (Date.now() - started) / 1000
  t.comment(`${operations.length} operations, ${inputsTried} inputs with their credentials, ${calls} calls to media-bff in ${seconds.toFixed(1)} s`)
  for (const { path, method } of operations) t.comment(`  ${method} ${path}: ${[...seen.get(`${method} ${path}`) ?? []].sort().join(' ')}`)
})

const FULL: Credentials = { name: 'alice, every scope, X-CSRF, the token', user: 'alice', csrf: true, bearer: true }
const ANONYMOUS: Credentials = { name: 'signed out, X-CSRF', user: undefined, csrf: true, bearer: false }

/** The bearer scheme an operation names, if any. */
function bearerOf (operation: Operation): 'metricsBearer' | 'operatorBearer' | undefined {
  const schemes = new Set((operation.security ?? []).flatMap((requirement) => Object.keys(requirement)))
  return schemes.has('operatorBearer') ? 'operatorBearer' : schemes.has('metricsBearer') ? 'metricsBearer' : undefined
}

/** Who calls it: signed out, signed in with every scope and with fewer; with and without X-CSRF and the token where it names them. */
function credentialsOf (operation: Operation): Credentials[] {
  const schemes = new Set((operation.security ?? []).flatMap((requirement) => Object.keys(requirement)))
  const users: Array<Credentials['user']> = [undefined, 'alice', ...(schemes.has('sessionCookie') ? ['bob' as const] : [])]
  const csrf = schemes.has('csrfHeader') ? [true, false] : [false]
  const bearer = bearerOf(operation) === undefined ? [false] : [true, false]
  return users.flatMap((user) => csrf.flatMap((withCsrf) => bearer.map((withBearer) => ({
    name: [user ?? 'signed out', withCsrf ? 'X-CSRF' : 'no X-CSRF', ...(bearerOf(operation) === undefined ? [] : [withBearer ? 'the token' : 'no token'])].join(', '),
    user,
    csrf: withCsrf,
    bearer: withBearer
  }))))
}

function isStream (operation: Operation): boolean {
  return Object.values(operation.responses).some((response) => Object.hasOwn((response as { content?: object }).content ?? {}, 'text/event-stream'))
}

/**
 * A live channel's answer: once it is open, `end` (its session signed out) has the channel tell
 * the page why and close; what came until then is the body. Anything else is read whole.
 */
async function streamed (url: string, headers: Record<string, string>, end: () => Promise<void>): Promise<Answer> {
  const controller = new AbortController()
  const response = await request(url, { method: 'GET', headers, signal: controller.signal })
  if (!String(response.headers['content-type']).startsWith('text/event-stream')) return { status: response.statusCode, headers: response.headers, body: await response.body.text() }
  let body = ''
  const timer = setTimeout(() => { controller.abort() }, 10_000)
  let ending: Promise<void> | undefined
  try {
    for await (const chunk of response.body) {
      body += String(chunk)
      ending ??= end()
    }
  } catch {
    // Aborted: the channel did not close within the time given; the events so far are checked.
  } finally {
    clearTimeout(timer)
  }
  await ending
  return { status: response.statusCode, headers: response.headers, body }
}

function queryOf (query: Record<string, unknown>): string {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) {
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, typeof item === 'string' ? item : JSON.stringify(item))
  }
  const text = search.toString()
  return text === '' ? '' : `?${text}`
}

function formOf (body: Record<string, unknown>): string {
  const form = new URLSearchParams()
  for (const [name, value] of Object.entries(body)) {
    for (const item of Array.isArray(value) ? value : [value]) form.append(Array.isArray(value) ? `${name}[]` : name, String(item))
  }
  return form.toString()
}

function texts (values: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]))
}

type Send = (method: string, target: string, headers: Record<string, string>, body?: string) => Promise<Answer>

/**
 * Values that exist, for the first valid input of each operation: folders of the emulator's
 * fixtures, files uploaded here (and others to delete), an upload the calling session registered,
 * another session of the person, the browser module's version, a sign-in walked to its callback,
 * a webhook signed with the key.
 */
async function existingValues (t: Test, built: Built, send: Send) {
  const alice = async (): Promise<string> => await built.signIn('alice', EVERY_SCOPE)
  const call = async (cookie: string, method: string, target: string, json?: unknown): Promise<any> => {
    const answer = await send(method, target, { cookie, 'x-csrf': '1', ...(json === undefined ? {} : { 'content-type': 'application/json' }) }, json === undefined ? undefined : JSON.stringify(json))
    if (answer.status >= 300) throw new Error(`${method} ${target} answered ${answer.status}: ${answer.body}`)
    return JSON.parse(answer.body)
  }
  const register = async (cookie: string): Promise<{ ulid: string, url_upload_direct: string }> => await call(cookie, 'POST', '/uploads/register', { folder_id: 0 })
  const upload = async (): Promise<string> => {
    const cookie = await alice()
    const registration = await register(cookie)
    const stored = await uploadDirect(registration.url_upload_direct, 'clip.txt', 'a clip')
    if (stored.status !== 200) throw new Error(`the upload host answered ${stored.status}`)
    const finished = await call(cookie, 'POST', `/uploads/${registration.ulid}/finish`)
    return String(finished.files[0].file_id)
  }
  const kept = await upload()
  let folders = 0
  const { version } = await readClientModule()
  t.comment(`file ${kept} uploaded, to read and share`)

  const values: Record<string, (method: string, cookie: string | undefined) => Promise<string>> = {
    // Fixture folders to read and add to; a folder made for the call to rename or delete.
    folder_id: async (method) => method === 'GET' || method === 'POST' ? '1' : String((await call(await alice(), 'POST', '/api/folders/0', { name: `made to go ${++folders}` })).folder_id),
    file_id: async (method) => method === 'GET' ? kept : await upload(),
    ulid: async (_method, cookie) => cookie === undefined ? '01J0000000000000000000000A' : (await register(cookie)).ulid,
    // Another session of the person: the caller's own would sign it out.
    id: async (_method, cookie) => {
      if (cookie === undefined) return 'a'.repeat(22)
      const { sessions } = await call(await alice(), 'GET', '/auth/sessions') as { sessions: Array<{ id: string, current: boolean }> }
      return sessions.find((session) => session.current)?.id ?? 'a'.repeat(22)
    },
    tenant: async () => 'default',
    version: async () => version,
    file: async () => 'media-bff-client.js'
  }

  /** A sign-in started and consented at the emulator: the callback's query and the login cookie. */
  const walked = async (): Promise<{ query: Record<string, string>, cookies: string[] }> => {
    const browser = built.browser()
    const login = await browser.navigate('/auth/login?return_to=/back')
    if (login.location === undefined) throw new Error(`the sign-in did not start: ${login.status} ${login.text}`)
    const callback = new URL(await consent(browser, login.location))
    return { query: Object.fromEntries(callback.searchParams), cookies: [...browser.cookies].map(([name, value]) => `${name}=${value}`) }
  }

  return {
    /**
     * The input with values that exist in place of generated ones; `cookie`, the session of the
     * caller when it is alice, whose values they are then (a registration of its own, another
     * session of its person).
     */
    applied: async ({ operation, method }: Described, input: Input, cookie: string | undefined): Promise<Input> => {
      const path: Record<string, string> = {}
      for (const [name, value] of Object.entries(input.path)) {
        const made = values[name]
        path[name] = made === undefined ? value : await made(method, cookie)
      }
      const made = { ...input, path }
      const withBody = (body: Record<string, unknown>): Input => ({ ...made, body: { type: 'application/json', text: JSON.stringify(body) } })
      switch (operation.operationId) {
        case 'startSignIn': return { ...made, query: { return_to: '/back' } }
        case 'checkSignedIn': return { ...made, query: { scope: 'upload' } }
        case 'finishSignIn': return { ...made, ...await walked() }
        case 'registerUpload': return withBody({ folder_id: 0, title: 'A clip' })
        case 'createFolder': case 'renameFolder': return withBody({ name: `a folder ${randomBytes(4).toString('hex')}` })
        case 'updateFile': return withBody({ title: 'A new title' })
        case 'createShareLink': return withBody({ files: [Number(kept)], download: false })
        case 'getOEmbed': return { ...made, query: { url: `${built.emulator.baseUrl}/share/${kept}` } }
        case 'receiveWebhook': case 'receiveTenantWebhook': return withBody(JSON.parse(signedWebhook(WEBHOOK_KEY, { fileId: Number(kept) })) as Record<string, unknown>)
      }
      return made
    }
  }
}
