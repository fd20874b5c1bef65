// A hostile stand-in for the media service (authorize, token, user/info, upload/id, finish, and
// the library endpoints the relay passes on: folders/, files/, oembed): a
// real HTTP server whose answers each test chooses, pointing media-bff at a second "canary"
// server, at paths outside the API, or at nonsense. Both servers record every request, so a
// test can prove that media-bff never sent anything anywhere but the tenant's API and token
// endpoint.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { RunningEmulator } from '../../emulator/index.js'

export interface RecordedRequest {
  method: string
  path: string
  authorization: string | undefined
  headers: IncomingMessage['headers']
  body: string
}

export interface Answer {
  status?: number
  headers?: Record<string, string>
  /** JSON-encoded unless a string. */
  body?: unknown
  /** Writes the whole answer itself (slow or endless bodies), instead of status/headers/body. */
  write?: (response: ServerResponse) => void
}

export interface HostileService {
  baseUrl: string
  canaryUrl: string
  /** Requests the tenant received. */
  received: RecordedRequest[]
  /** Requests the canary (a host media-bff must never call) received. */
  canaryReceived: RecordedRequest[]
  /** Replaces the answer of one endpoint; `undefined` restores the well-behaved one. */
  answer: (endpoint: Endpoint, make: ((request: IncomingMessage) => Answer) | undefined) => void
  /** Every endpoint well-behaved again, and no extra authorization response parameters. */
  reset: () => void
  /** Parameters added to every authorization response (iss, error, ...). */
  callbackParams: Record<string, string>
  /** Refresh tokens redeemed more than once (what a lost lease would cause). */
  reusedRefreshTokens: () => number
  refreshes: () => number
  close: () => Promise<void>
}

export type Endpoint = 'token' | 'user_info' | 'upload_id' | 'finish' | 'library'

export const VALID_ULID = '01JD3Z6Q4T8V2X7B9C5N1M0K2P'

export async function startHostileService (): Promise<HostileService> {
  const received: RecordedRequest[] = []
  const canaryReceived: RecordedRequest[] = []
  const overrides = new Map<Endpoint, (request: IncomingMessage) => Answer>()
  const redeemed = new Set<string>()
  let reused = 0
  let refreshes = 0
  let issued = 0
  const callbackParams: Record<string, string> = {}

  const canary = await listen((request, response) => {
    canaryReceived.push(record(request, ''))
    send(response, { status: 200, body: { status: 'success', note: 'the canary must never be reached' } })
  })
  const canaryUrl = `http://127.0.0.1:${port(canary)}`

  const tenant = await listen((request, response) => {
    const url = new URL(request.url ?? '/', 'http://tenant')
    const endpoint = endpointOf(request.method ?? 'GET', url.pathname)
    readBody(request).then((body) => {
      received.push(record(request, body))
      if (endpoint === 'authorize') {
        const target = new URL(url.searchParams.get('redirect_uri') ?? '')
        target.searchParams.set('code', `code-${++issued}`)
        target.searchParams.set('state', url.searchParams.get('state') ?? '')
        for (const [name, value] of Object.entries(callbackParams)) target.searchParams.set(name, value)
        send(response, { status: 302, headers: { location: target.href } })
        return
      }
      if (endpoint === undefined) {
        send(response, { status: 404, body: { error: 'not_found' } })
        return
      }
      const override = overrides.get(endpoint)
      if (override !== undefined) {
        send(response, override(request))
        return
      }
      send(response, wellBehaved(endpoint, new URLSearchParams(body), url))
    }).catch(() => { response.destroy() })
  })
  const baseUrl = `http://127.0.0.1:${port(tenant)}`

  function wellBehaved (endpoint: Endpoint, form: URLSearchParams, url: URL): Answer {
    switch (endpoint) {
      case 'token': {
        if (form.get('grant_type') === 'refresh_token') {
          refreshes++
          const token = form.get('refresh_token') ?? ''
          if (redeemed.has(token)) reused++
          redeemed.add(token)
        }
        const n = ++issued
        return { body: { access_token: `access-${n}`, refresh_token: `refresh-${n}`, expires_in: 3600, token_type: 'Bearer', scope: 'basic user.info upload' } }
      }
      case 'user_info':
        return { body: { user_id: 7, name: 'Alice', email: 'alice@example.org', scopes: ['basic', 'user.info', 'upload'] } }
      case 'upload_id':
        return { body: registration(baseUrl) }
      case 'finish':
        return { body: { status: 'success', files: [{ file_id: 1, title: 'a', urls: { file: `${baseUrl}/api/files/1` } }] } }
      case 'library':
        return { body: { folder_id: 0, folders: [], files: [], api: { self: `${baseUrl}${url.pathname}` } } }
    }
    throw new Error(`no answer for ${url.pathname}`)
  }

  return {
    baseUrl,
    canaryUrl,
    received,
    canaryReceived,
    callbackParams,
    reset: () => {
      overrides.clear()
      for (const name of Object.keys(callbackParams)) Reflect.deleteProperty(callbackParams, name)
    },
    answer: (endpoint, make) => {
      if (make === undefined) overrides.delete(endpoint)
      else overrides.set(endpoint, make)
    },
    reusedRefreshTokens: () => reused,
    refreshes: () => refreshes,
    close: async () => {
      await Promise.all([close(tenant), close(canary)])
    }
  }
}

/** The service as media-bff's test helpers take an upstream (startBff); it checks no credentials. */
export function asUpstream (service: HostileService): RunningEmulator {
  return { baseUrl: service.baseUrl, clientId: 'hostile-client', clientSecret: 'hostile-secret' } as RunningEmulator
}

/** A registration record as the real service gives it, on `baseUrl`, with `changes` applied. */
export function registration (baseUrl: string, changes: Record<string, unknown> = {}): Record<string, unknown> {
  const upload = `${baseUrl}/upload/direct?sig=abc`
  return {
    ulid: VALID_ULID,
    expires: Math.floor(Date.now() / 1000) + 3600,
    expires_in: 3600,
    url_upload_direct: upload,
    api: { rel: 'upload', upload, finish: `${baseUrl}/api/upload/id/${VALID_ULID}` },
    ...changes
  }
}

function endpointOf (method: string, path: string): Endpoint | 'authorize' | undefined {
  if (method === 'GET' && path === '/api/oauth2/authorize') return 'authorize'
  if (method === 'POST' && path === '/api/oauth2/token') return 'token'
  if (method === 'GET' && path === '/api/user/info') return 'user_info'
  if (method === 'POST' && path === '/api/upload/id') return 'upload_id'
  if (method === 'DELETE' && path.startsWith('/api/upload/id/')) return 'finish'
  if (/^\/api\/(folders|files|oembed)(\/|$)/.test(path)) return 'library'
  return undefined
}

function record (request: IncomingMessage, body: string): RecordedRequest {
  return { method: request.method ?? '', path: request.url ?? '', authorization: request.headers.authorization, headers: request.headers, body }
}

function send (response: ServerResponse, answer: Answer): void {
  if (answer.write !== undefined) {
    answer.write(response)
    return
  }
  const body = answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body)
  response.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers })
  response.end(body)
}

async function readBody (request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

async function listen (handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<Server> {
  const server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return server
}

function port (server: Server): number {
  return (server.address() as AddressInfo).port
}

async function close (server: Server): Promise<void> {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => { resolve() }))
}
