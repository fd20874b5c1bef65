// One relayed call: the upstream request with the user's token and nothing of the browser's,
// and the answer as the browser may see it. Answers stream through with a size cap and their
// tenant API links rewritten to media-bff's /api/ (local-links.ts); the first PRIME_BYTES are read and checked
// before anything is sent, so a short answer that is not JSON still becomes a clean 502.
// Statuses are sorted here: 2xx and 304 pass, a 4xx is a refusal the browser sees with its
// status, a 401 saying the token is invalid is for the caller's refresh-and-retry, and anything
// else (other 401s included) is the service's fault.
//
// Every call is bounded: at most maxInFlightPerViewer of one person's calls run at once
// (in-flight.ts), and each ends by its deadline, timeoutMs after it started, body included,
// whichever side is slow (a service that drips, a browser that stops reading).
import { Readable } from 'node:stream'
import type { Dispatcher } from 'undici'
import { BodyDeadlineError, BodyTooLargeError, readCappedText } from '../capped-body.js'
import { UpstreamError, retryAfterSeconds, saysTokenInvalid, serviceErrorFields, toUpstreamError } from '../media/upstream-error.js'
import { answerHeaders, isJsonContentType } from './answer-headers.js'
import { createInFlightLimit } from './in-flight.js'
import type { ValidatorBinding } from './validators.js'
import { JsonLinkRewriter, JsonStructureError, type JsonLinkRewriterOptions } from './json-link-rewriter.js'
import { linkRewriting, type RelayTarget } from './local-links.js'
import type { UpstreamRequest } from './upstream-request.js'
import { withRequestId } from '../request-id.js'
import { ATTR, failed, inContextOf, startSpan } from '../tracing/spans.js'

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
  /** The relay's own pool; its connect and headers timeouts are timeoutMs. */
  dispatcher: Dispatcher
  /** The deadline of a whole call, from sending it to the answer's last byte. */
  timeoutMs: number
  /** Calls one person (viewerKey) may have in flight on this instance. */
  maxInFlightPerViewer: number
  /** The service's cache validators bound to the viewer, and back (validators.ts). */
  validators: ValidatorBinding
  maxBodyBytes?: number
  /** After the status line arrives (status 0 without one), for metrics. */
  onCall?: (operation: string, status: number, seconds: number) => void
  /** An answer that failed after its status was sent: the browser sees a cut-off body. */
  onStreamError?: (operation: string, error: UpstreamError) => void
}

/** Too many of this person's calls are running: 429 with a short Retry-After. */
export class RelayBusyError extends Error {
  readonly retryAfterSeconds = 1
  constructor () {
    super('too many relayed calls in flight for this user')
    this.name = 'RelayBusyError'
  }
}

/** `viewer` is whose call it is (viewerKey): the in-flight cap counts per viewer. */
export type Relay = (request: UpstreamRequest, token: string, target: RelayTarget, viewer: string) => Promise<RelayAnswer>

/**
 * One call's hold on its viewer's slot, and its deadline: one timer, armed when the status line
 * arrives (the agent's headers timeout bounds the wait before it) with what is left of the
 * call's time. Both end exactly once, on whichever path the call takes.
 */
class CallHold {
  private timer: NodeJS.Timeout | undefined
  private ended = false
  /** What the deadline does: set by each phase of the call. */
  onDeadline: () => void = () => {}

  constructor (private readonly release: () => void) {}

  armDeadline (at: number): void {
    this.timer = setTimeout(() => { this.onDeadline() }, Math.max(0, at - performance.now()))
  }

  end (): void {
    if (this.ended) return
    this.ended = true
    clearTimeout(this.timer)
    this.release()
  }
}

export function createRelay (options: RelayOptions): Relay {
  const maxBodyBytes = options.maxBodyBytes ?? MAX_RELAYED_BODY_BYTES
  const inFlight = createInFlightLimit(options.maxInFlightPerViewer)
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
  return async function relay (request, token, target, viewer) {
    const name = request.operation.name
    // The operation's span lasts as long as the call holds its slot: a streamed answer's included.
    const span = startSpan(`relay ${name}`, { [ATTR.operation]: name })
    if (!inFlight.enter(viewer)) {
      const busy = new RelayBusyError()
      failed(span, busy)
      span.end()
      throw busy
    }
    const hold = new CallHold(() => {
      inFlight.leave(viewer)
      span.end()
    })
    let streaming = false
    try {
      const answer = await inContextOf(span, async () => await call(request, token, tenantOf(target), viewer, hold))
      span.setAttribute(ATTR.relayStatus, answer.status)
      streaming = answer.body instanceof Readable
      return answer
    } catch (error) {
      failed(span, error)
      throw error
    } finally {
      // A streamed answer holds its slot and deadline until the stream closes (streamThrough).
      if (!streaming) hold.end()
    }
  }

  async function call (request: UpstreamRequest, token: string, tenant: { origin: string, basePath: string, links: JsonLinkRewriterOptions }, viewer: string, hold: CallHold): Promise<RelayAnswer> {
    const name = request.operation.name
    const headers = withRequestId({ authorization: `Bearer ${token}`, accept: 'application/json', 'accept-encoding': 'identity' }, request.requestId)
    if (request.form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded'
    // Only a validator this viewer was given goes up; another's, or a forged one, is dropped.
    const condition = request.ifNoneMatch === undefined ? undefined : options.validators.unbind(viewer, request.ifNoneMatch)
    if (condition?.ifNoneMatch !== undefined) headers['if-none-match'] = condition.ifNoneMatch
    if (condition?.ifModifiedSince !== undefined) headers['if-modified-since'] = condition.ifModifiedSince
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
    // Until the answer streams, the deadline stops the read of its body: a 504 (or 502) follows.
    hold.onDeadline = () => { response.body.destroy(new BodyDeadlineError()) }
    hold.armDeadline(started + options.timeoutMs)
    if (status === 304 || status === 204 || status === 205) {
      await discard(response)
      return { status, headers: answerHeaders(response.headers, false, options.validators.bind(viewer, response.headers)) }
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
    const body = await streamThrough(name, response, rewriter, maxBodyBytes, hold, options.onStreamError)
    return { status, headers: answerHeaders(response.headers, true, options.validators.bind(viewer, response.headers)), body }
  }
}

/**
 * The answer's body, rewritten: whole when it fits in PRIME_BYTES, otherwise a stream that holds
 * the call (its slot and deadline) until it closes. At the deadline the stream is destroyed: the
 * browser's answer is cut off, and the service's body with it.
 */
async function streamThrough (name: string, response: Dispatcher.ResponseData, rewriter: JsonLinkRewriter, maxBodyBytes: number, hold: CallHold, onStreamError: RelayOptions['onStreamError']): Promise<Buffer | Readable> {
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
  // Reported once: a deadline also fails the read that was waiting.
  let reported = false
  const report = (failure: UpstreamError): void => {
    if (reported) return
    reported = true
    onStreamError?.(name, failure)
  }
  let complete = false
  const stream = Readable.from((async function * rest () {
    yield * head
    try {
      for (let chunk = await next(); chunk !== undefined; chunk = await next()) yield chunk
      complete = true
    } catch (error) {
      report(bodyFailure(name, response.statusCode, error))
      throw error
    }
  })())
  stream.once('close', () => {
    // Ended, failed, cut at the deadline, or the browser went away: stop reading from the
    // service too, and let the call go.
    if (!complete) response.body.destroy()
    hold.end()
  })
  hold.onDeadline = () => {
    const late = new UpstreamError('timeout', name, `${name} did not finish within the deadline`, response.statusCode)
    report(late)
    stream.destroy(late)
  }
  return stream
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
