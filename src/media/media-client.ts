// The media service's API over one pooled undici agent, with a deadline on every call. It knows
// the wire format (media-service.md) and nothing of sessions or HTTP routes.
import { Agent, type Dispatcher } from 'undici'
import { UpstreamError, serviceErrorFields } from './upstream-error.js'

export interface UserInfo {
  userId: string | undefined
  name: string | undefined
  email: string | undefined
  /** Scopes the account is entitled to; undefined when the service does not say. */
  scopes: string[] | undefined
}

export interface UploadRegistration {
  ulid: string
  expires: number
  expires_in: number
  url_upload_direct: string
  api: { rel?: string, upload?: string, finish: string, [key: string]: unknown }
}

export interface FinishResult {
  status: string
  files: unknown[]
}

export interface MediaClientOptions {
  timeoutMs: number
  /** Called after every call, for metrics: endpoint name, HTTP status (0 without one), seconds. */
  onCall?: (endpoint: string, status: number, seconds: number) => void
}

export type UploadFields = Record<string, string | number | boolean>

export function createMediaClient (options: MediaClientOptions) {
  const dispatcher: Dispatcher = new Agent({
    connections: 64,
    keepAliveTimeout: 10_000,
    connectTimeout: options.timeoutMs,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs
  })

  async function call (endpoint: string, url: string, init: { method: string, token: string, form?: UploadFields }): Promise<unknown> {
    const started = performance.now()
    let status = 0
    try {
      const headers: Record<string, string> = { authorization: `Bearer ${init.token}`, accept: 'application/json' }
      let body: string | undefined
      if (init.form !== undefined) {
        headers['content-type'] = 'application/x-www-form-urlencoded'
        body = new URLSearchParams(Object.entries(init.form).map(([k, v]) => [k, String(v)])).toString()
      }
      const response = await dispatcher.request({
        ...splitUrl(url),
        method: init.method as Dispatcher.HttpMethod,
        headers,
        body,
        signal: AbortSignal.timeout(options.timeoutMs)
      })
      status = response.statusCode
      const text = await response.body.text()
      const parsed = parseJson(text)
      if (status < 200 || status > 299) {
        const fields = serviceErrorFields(parsed)
        throw new UpstreamError('http', endpoint, `${endpoint} answered ${status}`, status, fields)
      }
      if (parsed === undefined) throw new UpstreamError('malformed', endpoint, `${endpoint} answered with a body that is not JSON`, status)
      return parsed
    } catch (error) {
      throw asUpstreamError(endpoint, error)
    } finally {
      options.onCall?.(endpoint, status, (performance.now() - started) / 1000)
    }
  }

  return {
    dispatcher,

    async getUserInfo (apiUrl: string, token: string): Promise<UserInfo> {
      const body = await call('user_info', `${apiUrl}/user/info`, { method: 'GET', token }) as Record<string, unknown>
      return readUserInfo(body)
    },

    async registerUpload (apiUrl: string, token: string, fields: UploadFields): Promise<UploadRegistration> {
      const body = await call('upload_id', `${apiUrl}/upload/id`, { method: 'POST', token, form: fields })
      return readRegistration(body)
    },

    async finishUpload (finishUrl: string, token: string): Promise<FinishResult> {
      const body = await call('finish', finishUrl, { method: 'DELETE', token }) as Record<string, unknown>
      if (typeof body !== 'object' || body === null || typeof body.status !== 'string') {
        throw new UpstreamError('malformed', 'finish', 'finish answered without a status')
      }
      return { status: body.status, files: Array.isArray(body.files) ? body.files : [] }
    },

    async close (): Promise<void> {
      await dispatcher.close()
    }
  }
}

export type MediaClient = ReturnType<typeof createMediaClient>

function splitUrl (url: string): { origin: string, path: string } {
  const parsed = new URL(url)
  return { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` }
}

function parseJson (text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function asUpstreamError (endpoint: string, error: unknown): UpstreamError {
  if (error instanceof UpstreamError) return error
  const name = (error as { name?: string }).name
  const code = (error as { code?: string }).code
  if (name === 'TimeoutError' || name === 'AbortError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new UpstreamError('timeout', endpoint, `${endpoint} did not answer in time`)
  }
  return new UpstreamError('network', endpoint, `${endpoint} could not be reached (${code ?? name ?? 'error'})`)
}

/** user/info's shape is unpublished: read what is there, tolerate what is not. */
function readUserInfo (body: Record<string, unknown>): UserInfo {
  const text = (value: unknown): string | undefined => typeof value === 'string' || typeof value === 'number' ? String(value) : undefined
  const scopes = Array.isArray(body.scopes)
    ? body.scopes.filter((scope): scope is string => typeof scope === 'string')
    : typeof body.scopes === 'string' ? body.scopes.split(/[\s,]+/).filter((s) => s !== '') : undefined
  return { userId: text(body.user_id ?? body.id), name: text(body.name), email: text(body.email), scopes }
}

function readRegistration (body: unknown): UploadRegistration {
  const record = body as Record<string, unknown> | null
  const api = record?.api as Record<string, unknown> | undefined
  if (record === null || typeof record !== 'object' || typeof record.ulid !== 'string' || typeof record.url_upload_direct !== 'string' ||
      typeof api !== 'object' || api === null || typeof api.finish !== 'string') {
    const fields = serviceErrorFields(body)
    throw new UpstreamError(fields.error === undefined ? 'malformed' : 'http', 'upload_id', 'the registration came back without ulid, url_upload_direct or api.finish', 200, fields)
  }
  return {
    ulid: record.ulid,
    expires: Number(record.expires),
    expires_in: Number(record.expires_in),
    url_upload_direct: record.url_upload_direct,
    api: { ...api, finish: api.finish }
  }
}
