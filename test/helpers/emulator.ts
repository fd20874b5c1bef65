// Helpers for tests that drive the media service emulator over real HTTP: start one per test
// (free ports, stopped in teardown) and walk the OAuth flow the way a browser would, by reading
// the consent page's form and posting it back.
import { createHash, randomBytes } from 'node:crypto'
import { request } from 'undici'
import { multipart } from './multipart.js'
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../emulator/index.js'

interface Teardown { teardown: (fn: () => Promise<void> | void) => void }

export async function startTestEmulator (t: Teardown, options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const emulator = await startEmulator({ apiPort: 0, uploadPort: 0, redirectUri: 'http://127.0.0.1:9/auth/callback', ...options })
  t.teardown(async () => { await emulator.stop() })
  return emulator
}

export function pkcePair (method: 'S256' | 'plain' = 'S256'): { verifier: string, challenge: string } {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier }
}

export interface AuthorizeRequest {
  user?: string
  scope?: string
  state?: string
  decision?: 'approve' | 'deny'
  codeChallenge?: string
  codeChallengeMethod?: string
  /** Extra or overriding query parameters. */
  extra?: Record<string, string>
}

export function authorizeUrl (emulator: RunningEmulator, input: AuthorizeRequest = {}): string {
  const url = new URL(`${emulator.baseUrl}/api/oauth2/authorize`)
  const params: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: emulator.clientId,
    redirect_uri: emulator.redirectUri,
    scope: input.scope ?? 'basic user.info',
    state: input.state ?? 'state-1',
    approval_prompt: 'auto',
    code_challenge: input.codeChallenge,
    code_challenge_method: input.codeChallengeMethod,
    ...input.extra
  }
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value)
  return url.toString()
}

function unescapeHtml (value: string): string {
  return value.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')
}

/** The hidden fields of the consent page's form, as a browser would post them. */
export function hiddenFields (html: string): URLSearchParams {
  const form = new URLSearchParams()
  for (const match of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    form.append(unescapeHtml(match[1] as string), unescapeHtml(match[2] as string))
  }
  return form
}

/** Opens the consent page, chooses the user and the decision, and returns the redirect's URL. */
export async function authorizeRedirect (emulator: RunningEmulator, input: AuthorizeRequest = {}): Promise<URL> {
  const page = await request(authorizeUrl(emulator, input))
  const html = await page.body.text()
  if (page.statusCode !== 200) throw new Error(`consent page answered ${page.statusCode}: ${html}`)
  const form = hiddenFields(html)
  form.set('user', input.user ?? 'alice')
  form.set('decision', input.decision ?? 'approve')
  const answer = await request(`${emulator.baseUrl}/api/oauth2/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString()
  })
  await answer.body.dump()
  const location = answer.headers.location
  if (answer.statusCode !== 302 || typeof location !== 'string') throw new Error(`authorize post answered ${answer.statusCode}`)
  return new URL(location)
}

export async function authorizationCode (emulator: RunningEmulator, input: AuthorizeRequest = {}): Promise<string> {
  const location = await authorizeRedirect(emulator, input)
  const code = location.searchParams.get('code')
  if (code === null) throw new Error(`no code in ${location.toString()}`)
  return code
}

export interface TokenAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Record<string, unknown>
}

/** POSTs to the token endpoint; client credentials go in the body unless basic is set. */
export async function tokenRequest (emulator: RunningEmulator, params: Record<string, string>, auth: 'body' | 'basic' | 'none' = 'body'): Promise<TokenAnswer> {
  const form = new URLSearchParams(params)
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' }
  if (auth === 'body') {
    form.set('client_id', emulator.clientId)
    form.set('client_secret', emulator.clientSecret)
  } else if (auth === 'basic') {
    const encode = (value: string): string => encodeURIComponent(value).replace(/%20/g, '+')
    headers.authorization = `Basic ${Buffer.from(`${encode(emulator.clientId)}:${encode(emulator.clientSecret)}`).toString('base64')}`
  }
  const answer = await request(`${emulator.baseUrl}/api/oauth2/token`, { method: 'POST', headers, body: form.toString() })
  return { status: answer.statusCode, headers: answer.headers, body: await answer.body.json() as Record<string, unknown> }
}

export interface TokenSet {
  access_token: string
  refresh_token: string
  scope: string
  expires_in: number
  user_id: number
}

/** The whole flow: consent as `user`, exchange the code, return the tokens. */
export async function signIn (emulator: RunningEmulator, input: AuthorizeRequest = {}): Promise<TokenSet> {
  const { verifier, challenge } = pkcePair()
  const code = await authorizationCode(emulator, { codeChallenge: challenge, codeChallengeMethod: 'S256', ...input })
  const answer = await tokenRequest(emulator, { grant_type: 'authorization_code', code, redirect_uri: emulator.redirectUri, code_verifier: verifier })
  if (answer.status !== 200) throw new Error(`token exchange failed: ${JSON.stringify(answer.body)}`)
  return answer.body as unknown as TokenSet
}

export function user (emulator: RunningEmulator, name: string): RunningEmulator['users'][number] {
  const found = emulator.users.find((candidate) => candidate.name === name)
  if (found === undefined) throw new Error(`no fixture user ${name}`)
  return found
}

export interface ApiCallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  token?: string
  privateToken?: string
  json?: unknown
  /** Url-encoded; a list value repeats the field. */
  form?: Record<string, string | string[]>
  headers?: Record<string, string>
}

export interface ApiAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
  /** The raw body (a 304 has none). */
  text: string
  /** The body parsed as JSON, or the text when it is not JSON. */
  body: any
}

/** Calls the API; returns the status, headers, raw text and parsed JSON. */
export async function apiCall (url: string, options: ApiCallOptions = {}): Promise<ApiAnswer> {
  const headers: Record<string, string> = { ...options.headers }
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
  if (options.privateToken !== undefined) headers.authorization = `Private-Token ${options.privateToken}`
  let body: string | undefined
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(options.json)
  } else if (options.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded'
    const form = new URLSearchParams()
    for (const [name, value] of Object.entries(options.form)) for (const item of [value].flat()) form.append(name, item)
    body = form.toString()
  }
  const answer = await request(url, { method: options.method ?? 'GET', headers, body })
  const text = await answer.body.text()
  let parsed: unknown = text
  try { parsed = JSON.parse(text) } catch {}
  return { status: answer.statusCode, headers: answer.headers, text, body: parsed }
}

/** What every JSON error answer holds (t.match pattern). */
export const errorShape = { error: String, error_description: String, user_message: String }

/** POSTs one file (multipart field `file`) plus fields; returns status, headers and JSON. */
export async function postFile (url: string, options: { content?: string | Buffer, filename?: string, fields?: Record<string, string>, headers?: Record<string, string> } = {}): Promise<{ status: number, headers: Record<string, string | string[] | undefined>, body: any }> {
  const form = new FormData()
  for (const [name, value] of Object.entries(options.fields ?? {})) form.append(name, value)
  const content = options.content ?? 'hello world\n'
  form.append('file', new Blob([typeof content === 'string' ? content : Uint8Array.from(content)]), options.filename ?? 'hello.txt')
  const { body, headers } = await multipart(form)
  const answer = await request(url, { method: 'POST', body, headers: { ...headers, ...options.headers } })
  const text = await answer.body.text()
  let parsed: unknown = text
  try { parsed = JSON.parse(text) } catch {}
  return { status: answer.statusCode, headers: answer.headers, body: parsed }
}

/** Registers an upload with alice's private token (or the given credential) and returns the record. */
export async function registerUpload (emulator: RunningEmulator, fields: Record<string, string> = {}, credential: { privateToken?: string, token?: string } = {}): Promise<{ ulid: string, expires: number, expires_in: number, url_upload_direct: string, api: { rel: string, upload: string, finish: string } }> {
  const auth = credential.token === undefined && credential.privateToken === undefined ? { privateToken: user(emulator, 'alice').privateToken } : credential
  const answer = await apiCall(`${emulator.baseUrl}/api/upload/id`, { method: 'POST', form: fields, ...auth })
  if (answer.status !== 200) throw new Error(`registration failed: ${answer.status} ${JSON.stringify(answer.body)}`)
  return answer.body
}
