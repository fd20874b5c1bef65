// How a call to the media service failed. The service's own error keys are kept so routes can
// pass them on; nothing here carries a token.

import { BodyTooLargeError } from './capped-body.js'

/**
 * http: a status media-bff cannot pass on (5xx, or 401 before the retry); refused: a 4xx the
 * relay passes on with its status; timeout, network, malformed: no usable answer.
 */
export type UpstreamFailure = 'http' | 'refused' | 'timeout' | 'network' | 'malformed'

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

  /** The upstream refused the access token: worth one refresh and retry. */
  get isUnauthorized (): boolean {
    return this.failure === 'http' && this.status === 401
  }
}

const MAX_FIELD_LENGTH = 300

/** Picks the three documented error keys out of a body, as short plain strings. */
export function serviceErrorFields (body: unknown): ServiceErrorFields {
  if (body === null || typeof body !== 'object') return {}
  const fields: ServiceErrorFields = {}
  for (const name of ['error', 'error_description', 'user_message'] as const) {
    const value = (body as Record<string, unknown>)[name]
    if (typeof value === 'string' && value.trim() !== '') fields[name] = value.slice(0, MAX_FIELD_LENGTH)
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
