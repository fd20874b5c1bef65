// One relayed call: the upstream request with the user's token and nothing of the browser's,
// and the answer as the browser may see it. Answers stream through with a size cap and their
// tenant API links rewritten to media-bff's /api/ (local-links.ts); the first PRIME_BYTES are read and checked
// before anything is sent, so a short answer that is not JSON still becomes a clean 502.
// Statuses are sorted here: 2xx and 304 pass, a 4xx is a refusal the browser sees with its
// status, a 401 saying the token is invalid is for the caller's refresh-and-retry, and anything
// else (other 401s included) is the service's fault.
import { Readable } from 'node:stream'
import type { Dispatcher } from 'undici'
import { BodyTooLargeError, readCappedText } from '../media/capped-body.js'
import { UpstreamError, saysTokenInvalid, serviceErrorFields, toUpstreamError } from '../media/upstream-error.js'
import { answerHeaders, isJsonContentType, retryAfterSeconds } from './answer-headers.js'
import { JsonLinkRewriter, JsonStructureError, type JsonLinkRewriterOptions } from './json-link-rewriter.js'
import { linkRewriting, type RelayTarget } from './local-links.js'
import type { UpstreamRequest } from './upstream-request.js'

export type { RelayTarget } from './local-links.js'

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
  // Per tenant, worked out on its first call rather than on every one: tenants are configured.
  const tenants = new Map<string, { origin: string, basePath: string, links: JsonLinkRewriterOptions }>()
  const tenantOf = (target: RelayTarget): { origin: string, basePath: string, links: JsonLinkRewriterOptions } => {
    const key = `${target.apiUrl} ${target.publicApiUrl}`
    let tenant = tenants.get(key)
    if (tenant === undefined) {
      const api = new URL(target.apiUrl)
      tenant = { origin: api.origin, basePath: api.pathname.replace(/\/+$/, ''), links: linkRewriting(target) }
      tenants.set(key, tenant)
    }
    return tenant
  }
  return async function relay (request, token, target) {
    const name = request.operation.name
    const tenant = tenantOf(target)
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json', 'accept-encoding': 'identity' }
    if (request.form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded'
    if (request.ifNoneMatch !== undefined) headers['if-none-match'] = request.ifNoneMatch
    if (request.ifModifiedSince !== undefined) headers['if-modified-since'] = request.ifModifiedSince
    const started = performance.now()
    let response: Dispatcher.ResponseData
    try {
      response = await options.dispatcher.request({
        origin: tenant.origin,
        path: `${tenant.basePath}/${request.path}`,
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
    const rewriter = new JsonLinkRewriter(tenant.links)
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
  let body: unknown
  try {
    body = JSON.parse(await readCappedText(response.body, MAX_ERROR_BODY_BYTES))
  } catch {
    response.body.destroy()
  }
  const fields = serviceErrorFields(body)
  if (status === 401) {
    // Retried once after a refresh only when the token was refused (saysTokenInvalid): the
    // service then did nothing, so even a write is not done twice. Any other 401 is a 502.
    const failure = saysTokenInvalid(response.headers, body) ? 'token_rejected' : 'http'
    return new UpstreamError(failure, name, `${name} answered 401`, status, fields)
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

async function discard (response: Dispatcher.ResponseData): Promise<void> {
  try {
    await response.body.dump({ limit: MAX_ERROR_BODY_BYTES })
  } catch {
    response.body.destroy()
  }
}
