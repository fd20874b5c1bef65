// The one place where failures become the contract's JSON errors (docs/reference/http-api.md,
// "Errors"). Routes and domain code throw; nothing here ever answers a bare 500 for bad input. It
// only maps: what a failure means for the session (a grant gone ends the sign-in) is done where it
// is found (plugins/gate.ts). The refusals that are security events are recorded here, where every
// one of them passes (src/audit/refusal-events.ts).
import fp from 'fastify-plugin'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { AppError, loginRequired, loginUrl, type ErrorCode } from '../src/errors.js'
import { StoreUnavailableError } from '../src/store/key-value-store.js'
import { GrantEndedError, GrantMissingError, RefreshUnavailableError } from '../src/grants/grant-errors.js'
import { UpstreamError } from '../src/media/upstream-error.js'
import { RelayInputError } from '../src/relay/upstream-request.js'
import { RelayBusyError } from '../src/relay/relay-call.js'
import { refusalEvent, unrelayedEvent } from '../src/audit/refusal-events.js'
const STORE_RETRY_AFTER_S = 5
/** How long to wait when the media service asked to slow down and did not say for how long. */
const UPSTREAM_RETRY_AFTER_S = 5

export default fp(async (app) => {
  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0] ?? ''
    const unrelayed = unrelayedEvent(path, app.config.basePath)
    if (unrelayed !== undefined) app.audit(unrelayed.event, { ...unrelayed.details, ...whoIn(request) }, request)
    return await send(reply, new AppError('not_found', `There is no ${request.method} ${path}.`))
  })

  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const appError = toAppError(error, request, app.config.basePath)
    const recorded = refusalEvent(error, appError)
    if (recorded !== undefined) app.audit(recorded.event, { ...recorded.details, ...whoIn(request) }, request)
    if (appError.status >= 500) {
      request.log.warn({ err: { type: error.name, message: error.message, code: appError.code } }, 'request failed')
    }
    return await send(reply, appError)
  })
}, { name: 'errors', dependencies: ['config', 'audit'] })

/** Whose session the request is, when the gate got that far: for the audit line. */
function whoIn (request: FastifyRequest): { tenant?: string, person?: string, session?: string } {
  const { signedIn } = request
  return signedIn === undefined ? {} : { tenant: signedIn.tenant, person: signedIn.user.id, session: signedIn.handle }
}

async function send (reply: FastifyReply, error: AppError): Promise<FastifyReply> {
  if (error.retryAfter !== undefined) reply.header('retry-after', String(error.retryAfter))
  return await reply.code(error.status).header('cache-control', 'no-store').send(error.toBody())
}

function toAppError (error: FastifyError, request: FastifyRequest, basePath: string): AppError {
  if (error instanceof AppError) return error
  if (error instanceof StoreUnavailableError) {
    return new AppError('unavailable', 'The session store cannot be reached right now; your session is kept. Try again shortly.', { retryAfter: STORE_RETRY_AFTER_S })
  }
  if (error instanceof GrantMissingError) return loginRequired(basePath)
  if (error instanceof GrantEndedError) {
    return new AppError('reauth_required', 'Your sign-in with the media service has ended. Please sign in again.', { details: { login_url: loginUrl(basePath) } })
  }
  if (error instanceof RefreshUnavailableError) {
    return new AppError('unavailable', 'The media service cannot renew your sign-in right now; your session is kept. Try again shortly.', { retryAfter: error.retryAfterSeconds })
  }
  if (error instanceof UpstreamError) return upstreamToAppError(error)
  if (error instanceof RelayBusyError) {
    return new AppError('rate_limited', 'Too many of your calls to the media service are still running; wait for them to finish and try again.', { retryAfter: error.retryAfterSeconds })
  }
  if (error instanceof RelayInputError) {
    return new AppError('invalid_request', `Invalid request: ${error.message}`, { details: { field: error.field } })
  }
  if (error.validation !== undefined) {
    const first = error.validation[0]
    const field = (first?.instancePath ?? '').replace(/^\//, '').replaceAll('/', '.') ||
      ((first?.params as { missingProperty?: string } | undefined)?.missingProperty ?? (first?.params as { requiredProperties?: string[] } | undefined)?.requiredProperties?.[0] ?? '')
    const where = error.validationContext ?? 'request'
    const extra = first?.keyword === 'additionalProperties' ? (first.params as { additionalProperty?: string }).additionalProperty : undefined
    if (extra !== undefined) {
      // e.g. "Invalid querystring: sort is not allowed here." or "Invalid body: options.colour ..."
      const name = field === '' ? extra : `${field}.${extra}`
      return new AppError('invalid_request', `Invalid ${where}: ${name} is not allowed here.`, { details: { field: name, location: where } })
    }
    // e.g. "Invalid body: folder_id must be >= 0." or "Invalid body: must have required property 'folder_id'."
    const subject = field === '' || first?.keyword === 'required' ? '' : `${field} `
    return new AppError('invalid_request', `Invalid ${where}: ${subject}${first?.message ?? 'is not valid'}.`, {
      details: { field: field === '' ? where : field, location: where }
    })
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'The request body is too large.')
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('invalid_request', 'Send the body as application/json.', { details: { field: 'content-type' } })
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('invalid_request', 'The body is not valid JSON.', { details: { field: 'body' } })
  }
  if (error instanceof SyntaxError || error.statusCode === 400) {
    return new AppError('invalid_request', 'The request could not be read.', { details: { field: 'body' } })
  }
  if (error.statusCode === 413) return new AppError('payload_too_large', 'The request body is too large.')
  if (error.statusCode === 415) return new AppError('invalid_request', 'Send the body as application/json.', { details: { field: 'content-type' } })
  if (error.statusCode === 503) {
    return new AppError('unavailable', 'media-bff is not ready to serve this request. Try again shortly.', { retryAfter: STORE_RETRY_AFTER_S })
  }
  // Anything else is our bug: say so plainly, without internals.
  request.log.error({ err: error }, 'unexpected error')
  return new AppError('unavailable', 'Something went wrong on our side; your session is kept. Try again shortly.', { retryAfter: STORE_RETRY_AFTER_S })
}

function upstreamToAppError (error: UpstreamError): AppError {
  if (error.failure === 'timeout') {
    return new AppError('upstream_timeout', 'The media service did not answer in time. Try again.')
  }
  const upstream: Record<string, unknown> = { endpoint: error.endpoint }
  if (error.status !== undefined) upstream.status = error.status
  Object.assign(upstream, error.fields)
  if (error.failure === 'refused' && error.status !== undefined) {
    const message = error.fields.user_message ?? error.fields.error_description ?? `The media service refused this request (${error.status}).`
    // A 429 always says how long to wait (the contract's): the service's, or a few seconds.
    const retryAfter = error.retryAfter ?? (error.status === 429 ? UPSTREAM_RETRY_AFTER_S : undefined)
    return new AppError(refusalCode(error.status), message, { status: error.status, retryAfter, details: { upstream } })
  }
  const message = error.fields.user_message ?? error.fields.error_description ??
    (error.failure === 'network' ? 'The media service cannot be reached.' : 'The media service failed or answered something media-bff could not read.')
  return new AppError('upstream_error', message, { details: { upstream } })
}

/** A relayed 4xx keeps its status; its code is the contract's nearest one. */
function refusalCode (status: number): ErrorCode {
  switch (status) {
    case 400:
    case 422:
      return 'invalid_request'
    case 404:
    case 410:
      return 'not_found'
    case 413:
      return 'payload_too_large'
    case 429:
      return 'rate_limited'
    default:
      return 'upstream_refused'
  }
}
