// A small browser stand-in: a cookie jar, no automatic redirects, and the headers our front-end
// sends. Each instance is one browser. Over real HTTP by default; a test that builds media-bff
// without a port (test/helpers/build.ts) gives it app.inject to send with instead.
import { request } from 'undici'

/** One request as sent: an absolute URL. */
export type Send = (method: string, url: string, headers: Record<string, string>, body: string | undefined) => Promise<{ status: number, headers: Record<string, string | string[] | undefined>, text: string }>

/** Real HTTP, with undici. */
export const overHttp: Send = async (method, url, headers, body) => {
  const response = await request(url, { method: method as 'GET', headers, body })
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() }
}

export interface HttpResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  json: () => any
  location: string | undefined
  setCookies: string[]
}

export class Browser {
  readonly cookies = new Map<string, string>()

  constructor (readonly baseUrl: string, readonly defaultHeaders: Record<string, string> = {}, private readonly send: Send = overHttp) {}

  cookieHeader (): string | undefined {
    if (this.cookies.size === 0) return undefined
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
  }

  async fetch (method: string, pathOrUrl: string, options: { headers?: Record<string, string>, body?: string, json?: unknown } = {}): Promise<HttpResponse> {
    const url = pathOrUrl.startsWith('http') ? pathOrUrl : `${this.baseUrl}${pathOrUrl}`
    const headers: Record<string, string> = { ...this.defaultHeaders, ...options.headers }
    const cookie = this.cookieHeader()
    if (cookie !== undefined && headers.cookie === undefined) headers.cookie = cookie
    let body = options.body
    if (options.json !== undefined) {
      body = JSON.stringify(options.json)
      headers['content-type'] ??= 'application/json'
    }
    const response = await this.send(method, url, headers, body)
    const { text } = response
    const raw = response.headers['set-cookie']
    const setCookies = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]
    for (const line of setCookies) this.store(line)
    const location = response.headers.location
    return {
      status: response.status,
      headers: response.headers,
      text,
      json: () => JSON.parse(text),
      location: typeof location === 'string' ? location : undefined,
      setCookies
    }
  }

  /** A read as the website's front-end makes it: with X-CSRF: 1, as media-bff asks of every call. */
  get (path: string, headers: Record<string, string> = {}): Promise<HttpResponse> {
    return this.fetch('GET', path, { headers: { 'x-csrf': '1', ...headers } })
  }

  /** A top-level navigation (sign-in, the callback, a link followed): no custom header. */
  navigate (path: string, headers: Record<string, string> = {}): Promise<HttpResponse> {
    return this.fetch('GET', path, { headers })
  }

  /** A state-changing call as the website's front-end makes it: JSON with X-CSRF: 1. */
  post (path: string, json?: unknown, headers: Record<string, string> = {}): Promise<HttpResponse> {
    return this.fetch('POST', path, { headers: { 'x-csrf': '1', ...headers }, ...(json === undefined ? {} : { json }) })
  }

  private store (line: string): void {
    const [pair = '', ...attributes] = line.split(';')
    const at = pair.indexOf('=')
    const name = pair.slice(0, at).trim()
    const value = pair.slice(at + 1).trim()
    const expired = attributes.some((attribute) => {
      const [key = '', val = ''] = attribute.trim().split('=')
      return (key.toLowerCase() === 'max-age' && Number(val) <= 0) || (key.toLowerCase() === 'expires' && Date.parse(val) <= Date.now())
    })
    if (expired || value === '') this.cookies.delete(name)
    else this.cookies.set(name, value)
  }
}

/** Parses one Set-Cookie line into its name, value and attributes (lower-cased keys). */
export function parseSetCookie (line: string): { name: string, value: string, attributes: Record<string, string | true> } {
  const [pair = '', ...rest] = line.split(';')
  const at = pair.indexOf('=')
  const attributes: Record<string, string | true> = {}
  for (const part of rest) {
    const [key = '', ...value] = part.trim().split('=')
    attributes[key.toLowerCase()] = value.length === 0 ? true : value.join('=')
  }
  return { name: pair.slice(0, at).trim(), value: pair.slice(at + 1).trim(), attributes }
}
