// How a call to the media service failed. The service's own error keys are kept so routes can
// pass them on; nothing here carries a token.
import type { IncomingHttpHeaders } from 'node:http'
import { plainText } from '../safe-text.js'
import { BodyTooLargeError } from '../capped-body.js'

/**
 * http: a status media-bff cannot pass on (5xx, or a 401 that is not about the token);
 * token_rejected: a 401 saying the access token is invalid (worth one refresh and retry);
 * refused: a 4xx the relay passes on with its status; timeout, network, malformed: no usable answer.
 */
export type UpstreamFailure = 'http' | 'token_rejected' | 'refused' | 'timeout' | 'network' | 'malformed'

export interface ServiceErrorFields {
  error?: string
  error_description?: string
  user_message?: string
}

export class UpstreamError extends Error {
  constructor (
    readonly failure: UpstreamFailure,
    readonly endpoint: string,
    message: string,
    readonly status?: number,
    readonly fields: ServiceErrorFields = {},
    /** Seconds, from the service's Retry-After on a refusal (429, 503). */
    readonly retryAfter?: number
  ) {
    super(message)
    this.name = 'UpstreamError'
  }

  /** The upstream said the access token is invalid: worth one refresh and retry. */
  get isUnauthorized (): boolean {
    return this.failure === 'token_rejected'
  }
}

/**
 * An address the media service handed out that media-bff may not use (an upload host not in
 * UPLOAD_ALLOWED_HOSTS, a finish URL off the tenant's API): refused before it is stored, followed
 * or given to the browser. The upstream's fault (502), and a security event (src/audit/).
 */
export class UrlRefusedError extends UpstreamError {
  constructor (endpoint: string, reason: string, fields: ServiceErrorFields) {
    super('malformed', endpoint, reason, 200, fields)
    this.name = 'UrlRefusedError'
  }
}

/**
 * Whether a 401 says the access token is invalid, as an OAuth resource server says it (RFC 6750
 * 3.1): a Bearer challenge with error="invalid_token", or a JSON body whose error is
 * invalid_token. Only then is a refresh and one retry worth it: the service checked the token
 * before anything else and refused, so it did nothing, and a retried write cannot happen twice.
 * Any other 401 (no reason, another error, a proxy's Basic challenge) is not cured by a new token.
 */
export function saysTokenInvalid (headers: IncomingHttpHeaders, body: unknown): boolean {
  const challenge = headers['www-authenticate']
  const challenges = Array.isArray(challenge) ? challenge : challenge === undefined ? [] : [challenge]
  if (challenges.some((value) => value.length <= 2048 && BEARER_INVALID_TOKEN.test(value))) return true
  return body !== null && typeof body === 'object' && (body as Record<string, unknown>).error === 'invalid_token'
}

/** A Bearer challenge whose error parameter (quoted or not) is invalid_token; not error_description. */
const BEARER_INVALID_TOKEN = /(?:^|,)\s*Bearer\s.*?(?:^|[\s,])error\s*=\s*(?:"invalid_token"|invalid_token)\s*(?:,|$)/i

const MAX_FIELD_LENGTH = 300

/**
 * Picks the three documented error keys out of a body, as short plain strings: they reach the
 * browser (in `upstream`, and as the error's `message`), so control and bidirectional characters
 * are stripped (src/safe-text.ts) and each is capped.
 */
export function serviceErrorFields (body: unknown): ServiceErrorFields {
  if (body === null || typeof body !== 'object') return {}
  const fields: ServiceErrorFields = {}
  for (const name of ['error', 'error_description', 'user_message'] as const) {
    const value = (body as Record<string, unknown>)[name]
    const plain = typeof value === 'string' ? plainText(value, MAX_FIELD_LENGTH) : ''
    if (plain !== '') fields[name] = plain
  }
  return fields
}

/** Any failure of a call as an UpstreamError: timeouts, network errors and oversized bodies named. */
export function toUpstreamError (endpoint: string, error: unknown): UpstreamError {
  if (error instanceof UpstreamError) return error
  if (error instanceof BodyTooLargeError) return new UpstreamError('malformed', endpoint, `${endpoint} answered with more than ${error.limitBytes} bytes`)
  const name = (error as { name?: string }).name
  const code = (error as { code?: string }).code
  if (name === 'TimeoutError' || name === 'AbortError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new UpstreamError('timeout', endpoint, `${endpoint} did not answer in time`)
  }
  return new UpstreamError('network', endpoint, `${endpoint} could not be reached (${code ?? name ?? 'error'})`)
}

/** Retry-After in seconds, when the service sent a sane one. */
export function retryAfterSeconds (value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? undefined : value
  if (text === undefined || !/^\d{1,5}$/.test(text.trim())) return undefined
  return Math.min(Number(text), 3600)
}
