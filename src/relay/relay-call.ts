// One relayed call: the upstream request with the user's token and nothing of the browser's,
// and the answer as the browser may see it. Answers stream through with a size cap and their
// tenant API links rewritten to media-bff's /api/; the first PRIME_BYTES are read and checked
// before anything is sent, so a short answer that is not JSON still becomes a clean 502.
// Statuses are sorted here: 2xx and 304 pass, a 4xx is a refusal the browser sees with its
// status, 401 is for the caller's refresh-and-retry, and anything else is the service's fault.
import { Readable } from 'node:stream'
import type { Dispatcher } from 'undici'
import { BodyTooLargeError, readCappedText } from '../media/capped-body.js'
import { underTenantApi } from '../media/tenant-urls.js'
import { UpstreamError, serviceErrorFields, toUpstreamError } from '../media/upstream-error.js'
import { answerHeaders, isJsonContentType, retryAfterSeconds } from './answer-headers.js'
import { JsonLinkRewriter, JsonStructureError, type JsonLinkRewriterOptions } from './json-link-rewriter.js'
import type { UpstreamRequest } from './upstream-request.js'

/** The largest answer relayed; beyond it the answer is cut off (or refused, if it says so). */
export const MAX_RELAYED_BODY_BYTES = 4 * 1_048_576
/** Read and checked before the status line goes out. */
const PRIME_BYTES = 65_536
const MAX_ERROR_BODY_BYTES = 65_536

export interface RelayAnswer {
  status: number
  headers: Record<string, string>
  body?: Buffer | Readable
}

export interface RelayTarget {
  /** The tenant's API, e.g. https://tenant.example/api */
  apiUrl: string
  /** media-bff's own /api, e.g. https://media.example.org/api */
  publicApiUrl: string
}

export interface RelayOptions {
  /** Its connect, headers and body timeouts are the relay's deadlines. */
  dispatcher: Dispatcher
  maxBodyBytes?: number
  /** After the status line arrives (status 0 without one), for metrics. */
  onCall?: (operation: string, status: number, seconds: number) => void
  /** An answer that failed after its status was sent: the browser sees a cut-off body. */
  onStreamError?: (operation: string, error: Error) => void
}

export type Relay = (request: UpstreamRequest, token: string, target: RelayTarget) => Promise<RelayAnswer>

export function createRelay (options: RelayOptions): Relay {
  const maxBodyBytes = options.maxBodyBytes ?? MAX_RELAYED_BODY_BYTES
  return async function relay (request, token, target) {
    const name = request.operation.name
    const api = new URL(target.apiUrl)
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json', 'accept-encoding': 'identity' }
    if (request.form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded'
    if (request.ifNoneMatch !== undefined) headers['if-none-match'] = request.ifNoneMatch
    if (request.ifModifiedSince !== undefined) headers['if-modified-since'] = request.ifModifiedSince
    const started = performance.now()
    let response: Dispatcher.ResponseData
    try {
      response = await options.dispatcher.request({
        origin: api.origin,
        path: `${api.pathname.replace(/\/+$/, '')}/${request.path}`,
        method: request.operation.method,
        headers,
        body: request.form
      })
    } catch (error) {
      options.onCall?.(name, 0, (performance.now() - started) / 1000)
      throw toUpstreamError(name, error)
    }
    const status = response.statusCode
    options.onCall?.(name, status, (performance.now() - started) / 1000)
    if (status === 304 || status === 204 || status === 205) {
      await discard(response)
      return { status, headers: answerHeaders(response.headers, false) }
    }
    if (status < 200 || status > 299) throw await failureOf(name, response)
    if (!isJsonContentType(response.headers['content-type'])) {
      await discard(response)
      throw new UpstreamError('malformed', name, `${name} answered with a body that is not JSON`, status)
    }
    if (Number(response.headers['content-length'] ?? 0) > maxBodyBytes) {
      await discard(response)
      throw new UpstreamError('malformed', name, `${name} answered with more than ${maxBodyBytes} bytes`, status)
    }
    const rewriter = new JsonLinkRewriter(linkRewriting(target))
    const body = await streamThrough(name, response, rewriter, maxBodyBytes, options.onStreamError)
    return { status, headers: answerHeaders(response.headers, true), body }
  }
}

/** The answer's body, rewritten: whole when it fits in PRIME_BYTES, otherwise a stream. */
async function streamThrough (name: string, response: Dispatcher.ResponseData, rewriter: JsonLinkRewriter, maxBodyBytes: number, onStreamError: RelayOptions['onStreamError']): Promise<Buffer | Readable> {
  const chunks = response.body[Symbol.asyncIterator]() as AsyncIterator<Buffer>
  const head: Buffer[] = []
  let size = 0
  const next = async (): Promise<Buffer | undefined> => {
    const read = await chunks.next()
    if (read.done === true) {
      rewriter.end()
      return undefined
    }
    size += read.value.length
    if (size > maxBodyBytes) throw new BodyTooLargeError(maxBodyBytes)
    return rewriter.push(read.value)
  }
  try {
    for (let chunk = await next(); chunk !== undefined; chunk = await next()) {
      head.push(chunk)
      if (size >= PRIME_BYTES) break
    }
    if (size < PRIME_BYTES) return Buffer.concat(head)
  } catch (error) {
    response.body.destroy()
    throw bodyFailure(name, response.statusCode, error)
  }
  return Readable.from((async function * rest () {
    let complete = false
    try {
      yield * head
      for (let chunk = await next(); chunk !== undefined; chunk = await next()) yield chunk
      complete = true
    } catch (error) {
      onStreamError?.(name, bodyFailure(name, response.statusCode, error))
      throw error
    } finally {
      // The browser went away, or the answer failed: stop reading from the service too.
      if (!complete) response.body.destroy()
    }
  })())
}

/** A 4xx passes on as a refusal with the service's own error fields; anything else is a 502. */
async function failureOf (name: string, response: Dispatcher.ResponseData): Promise<UpstreamError> {
  const status = response.statusCode
  if (status === 401) {
    await discard(response)
    return new UpstreamError('http', name, `${name} answered 401`, status)
  }
  let fields = {}
  try {
    fields = serviceErrorFields(JSON.parse(await readCappedText(response.body, MAX_ERROR_BODY_BYTES)))
  } catch {
    response.body.destroy()
  }
  if (status >= 400 && status <= 499) {
    return new UpstreamError('refused', name, `${name} answered ${status}`, status, fields, retryAfterSeconds(response.headers['retry-after']))
  }
  // Redirects are never followed: a service that points elsewhere is answering nonsense.
  return new UpstreamError(status >= 500 ? 'http' : 'malformed', name, `${name} answered ${status}`, status, fields)
}

function bodyFailure (name: string, status: number, error: unknown): UpstreamError {
  if (error instanceof JsonStructureError) return new UpstreamError('malformed', name, `${name} answered with a body that is not JSON (${error.message})`, status)
  return toUpstreamError(name, error)
}

/**
 * How the relay rewrites an answer's links: the tenant's host marks the candidates; a plainly
 * spelled link is rewritten byte for byte, anything else goes through localLink's URL check.
 */
export function linkRewriting (target: RelayTarget): JsonLinkRewriterOptions {
  const api = new URL(target.apiUrl)
  const apiBase = `${api.origin}${api.pathname.replace(/\/+$/, '')}`
  const from = Buffer.from(apiBase)
  const to = Buffer.from(target.publicApiUrl)
  return {
    marker: api.host,
    rewrite: (value) => localLink(value, target, apiBase),
    rewriteRaw: (raw) => {
      if (raw.length <= from.length || raw.compare(from, 0, from.length, 0, from.length) !== 0) return undefined
      return isPlainApiPath(raw, from.length) ? Buffer.concat([to, raw.subarray(from.length)]) : undefined
    }
  }
}

/** A link to the tenant's API becomes the same link on media-bff's /api/; anything else, undefined. */
export function localLink (value: string, target: RelayTarget, apiBase: string): string | undefined {
  // The common spelling, checked without parsing: the tenant's own prefix, then a path and query
  // of plain characters (no dots, percent signs in the path, or doubled slashes to normalise).
  if (value.startsWith(apiBase)) {
    const rest = value.slice(apiBase.length)
    if (PLAIN_API_PATH.test(rest) && !rest.includes('//')) return `${target.publicApiUrl}${rest}`
  }
  const href = underTenantApi(value, target.apiUrl)
  return href === undefined ? undefined : `${target.publicApiUrl}${href.slice(apiBase.length)}`
}

const PLAIN_API_PATH = /^\/[\w\-/]*(\?[\w\-.~=&%+]*)?$/

const PATH_BYTE = new Uint8Array(256)
const QUERY_BYTE = new Uint8Array(256)
for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-') PATH_BYTE[char.charCodeAt(0)] = QUERY_BYTE[char.charCodeAt(0)] = 1
PATH_BYTE[0x2f] = 1
for (const char of '.~=&%+') QUERY_BYTE[char.charCodeAt(0)] = 1

/** PLAIN_API_PATH and no doubled slash, on bytes from `start`. */
function isPlainApiPath (raw: Buffer, start: number): boolean {
  if (raw[start] !== 0x2f) return false
  let i = start + 1
  for (; i < raw.length && raw[i] !== 0x3f; i++) {
    const byte = raw[i] as number
    if (PATH_BYTE[byte] !== 1 || (byte === 0x2f && raw[i - 1] === 0x2f)) return false
  }
  for (i++; i < raw.length; i++) if (QUERY_BYTE[raw[i] as number] !== 1) return false
  return true
}

async function discard (response: Dispatcher.ResponseData): Promise<void> {
  try {
    await response.body.dump({ limit: MAX_ERROR_BODY_BYTES })
  } catch {
    response.body.destroy()
  }
}
