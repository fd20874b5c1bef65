// A browser with device-bound sessions, doing what Chrome does (the WICG DBSC protocol as it
// ships): it answers a Secure-Session-Registration with a new P-256 key of its own, kept out of
// reach (WebCrypto, not extractable), signing a `dbsc+jwt` whose header carries the public key as
// `jwk` and whose `jti` is the challenge; it keeps the session instructions; before a request in
// the session's scope it renews a missing or expired bound cookie at the refresh URL, signing the
// challenge it holds or the one a 403 hands it; and it drops its session on `continue: false` or
// a 4xx other than 403. This machine's Chromium has no unexportable keys on Linux, so the
// protocol's tests drive this client; everything else rides on the ordinary test Browser.
import type { Browser, HttpResponse } from './http-client.js'

const { subtle } = globalThis.crypto

export interface DeviceSession {
  id: string
  refreshUrl: string
  cookieName: string
  /** The challenge the next proof signs (Secure-Session-Challenge), when one was handed out. */
  challenge: string | undefined
  /** The rules of the session's scope, first match decides. */
  rules: Array<{ type: string, path: string }>
}

export interface DbscBrowserOptions {
  /** The clock bound cookies expire on (a test's, moved on instead of waiting). */
  now?: () => number
  /** Another device's key, for a thief's proofs: by default a new key is made at registration. */
  keys?: CryptoKeyPair
}

export class DbscBrowser {
  session: DeviceSession | undefined
  keys: CryptoKeyPair | undefined
  /** When the bound cookie runs out, by its Max-Age. */
  private boundUntil = 0
  /** Every registration and refresh this browser made, with what it was answered. */
  readonly exchanges: Array<{ step: 'register' | 'refresh', status: number }> = []
  private readonly now: () => number
  /** The instance this browser's calls go to (another replica behind the same name): its URL. */
  private base = ''

  constructor (readonly browser: Browser, options: DbscBrowserOptions = {}) {
    this.now = options.now ?? Date.now
    this.keys = options.keys
  }

  /** From now on the calls go to this instance (a load balancer's choice), cookies as they are. */
  via (url: string): this {
    this.base = url
    return this
  }

  /** A page's call (X-CSRF: 1), with the session renewed first when its cookie is missing. */
  async call (method: string, path: string, json?: unknown): Promise<HttpResponse> {
    await this.beforeRequest(path)
    const response = await this.browser.fetch(method, `${this.base}${path}`, { headers: { 'x-csrf': '1' }, ...(json === undefined ? {} : { json }) })
    await this.afterResponse(response)
    return response
  }

  /** Takes a registration offered on an answer, as Chrome does with every response. */
  async afterResponse (response: HttpResponse): Promise<void> {
    const offered = response.headers['secure-session-registration']
    if (typeof offered !== 'string' || this.session !== undefined) return
    const offer = parseRegistration(offered)
    if (offer === undefined || !offer.algorithms.includes('ES256')) return
    const keys = this.keys ?? await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify'])
    this.keys = keys
    const jwk = await subtle.exportKey('jwk', keys.publicKey)
    const proof = await this.sign({ alg: 'ES256', typ: 'dbsc+jwt', jwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y } }, { jti: offer.challenge })
    const answer = await this.browser.fetch('POST', `${this.base}${offer.path}`, { headers: { 'secure-session-response': sfString(proof), accept: 'application/json' } })
    this.exchanges.push({ step: 'register', status: answer.status })
    if (answer.status !== 200) return
    this.take(answer)
  }

  /** Renews the bound cookie when it is missing or expired and the path is in the session's scope. */
  async beforeRequest (path: string): Promise<void> {
    const session = this.session
    if (session === undefined || !this.inScope(path)) return
    if (this.browser.cookies.has(session.cookieName) && this.now() < this.boundUntil) return
    this.browser.cookies.delete(session.cookieName)
    await this.refresh()
  }

  /** The refresh as Chrome makes it: with the challenge it holds, or first without, then the 403's. */
  async refresh (): Promise<number> {
    const session = this.session
    if (session === undefined) throw new Error('no device-bound session to refresh')
    for (let attempt = 0; attempt < 3; attempt++) {
      const headers: Record<string, string> = { 'sec-secure-session-id': sfString(session.id), accept: 'application/json' }
      if (session.challenge !== undefined) headers['secure-session-response'] = sfString(await this.sign({ alg: 'ES256', typ: 'dbsc+jwt' }, { jti: session.challenge }))
      const answer = await this.browser.fetch('POST', `${this.base}${session.refreshUrl}`, { headers })
      this.exchanges.push({ step: 'refresh', status: answer.status })
      if (answer.status === 403) {
        const challenge = parseChallenge(answer.headers['secure-session-challenge'])
        if (challenge === undefined || challenge.id !== session.id) return 403
        session.challenge = challenge.challenge
        continue
      }
      if (answer.status >= 400 && answer.status < 500) {
        this.session = undefined
      } else if (answer.status === 200) {
        const body = answer.json() as Record<string, unknown>
        if (body.continue === false) this.session = undefined
        else this.take(answer)
      }
      return answer.status
    }
    return 403
  }

  /** A proof of anything, signed with this browser's key. */
  async sign (header: Record<string, unknown>, payload: Record<string, unknown>): Promise<string> {
    if (this.keys === undefined) throw new Error('this browser has no key')
    const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')
    const input = `${encode(header)}.${encode(payload)}`
    const signature = await subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, this.keys.privateKey, Buffer.from(input))
    return `${input}.${Buffer.from(signature).toString('base64url')}`
  }

  private take (answer: HttpResponse): void {
    const body = answer.json() as { session_identifier: string, refresh_url: string, credentials: Array<{ name: string }>, scope: { scope_specification: Array<{ type: string, path: string }> } }
    const challenge = parseChallenge(answer.headers['secure-session-challenge'])
    this.session = {
      id: body.session_identifier,
      refreshUrl: body.refresh_url,
      cookieName: body.credentials[0]?.name ?? '',
      challenge: challenge?.id === body.session_identifier ? challenge.challenge : undefined,
      rules: body.scope.scope_specification
    }
    const line = answer.setCookies.find((cookie) => cookie.startsWith(`${this.session?.cookieName ?? ''}=`))
    const maxAge = Number(/;\s*Max-Age=(\d+)/i.exec(line ?? '')?.[1] ?? '0')
    this.boundUntil = this.now() + maxAge * 1000
  }

  private inScope (path: string): boolean {
    const session = this.session
    if (session === undefined) return false
    const pathname = new URL(path, 'http://x').pathname
    if (pathname === session.refreshUrl) return false
    for (const rule of session.rules) {
      const matches = pathname === rule.path || (rule.path.endsWith('/') && pathname.startsWith(rule.path)) || pathname.startsWith(`${rule.path}/`)
      if (matches) return rule.type === 'include'
    }
    return true
  }
}

/** An RFC 9651 string. */
export function sfString (value: string): string {
  return `"${value.replace(/[\\"]/g, (character) => `\\${character}`)}"`
}

/** Secure-Session-Registration's first entry: its algorithms and its path and challenge. */
export function parseRegistration (header: string): { algorithms: string[], path: string, challenge: string } | undefined {
  const match = /^\(([^)]*)\)(.*)$/.exec(header.split(',')[0]?.trim() ?? '')
  if (match === null) return undefined
  const params = paramsOf(match[2] ?? '')
  const path = params.get('path')
  const challenge = params.get('challenge')
  if (path === undefined || challenge === undefined) return undefined
  return { algorithms: (match[1] ?? '').split(' ').filter(Boolean), path, challenge }
}

/** Secure-Session-Challenge: the challenge and the session it is for. */
export function parseChallenge (header: string | string[] | undefined): { challenge: string, id: string | undefined } | undefined {
  if (typeof header !== 'string') return undefined
  const match = /^"((?:[^"\\]|\\.)*)"(.*)$/.exec(header.trim())
  if (match === null) return undefined
  return { challenge: unescape(match[1] ?? ''), id: paramsOf(match[2] ?? '').get('id') }
}

function paramsOf (text: string): Map<string, string> {
  const params = new Map<string, string>()
  for (const [, name = '', value = ''] of text.matchAll(/;\s*([a-z_*][a-z0-9_.*-]*)="((?:[^"\\]|\\.)*)"/g)) params.set(name, unescape(value))
  return params
}

function unescape (value: string): string {
  return value.replace(/\\(["\\])/g, '$1')
}
