// The error contract (docs/reference/http-api.md, "Errors"): every non-2xx JSON body is
// { error: "<snake_case_code>", message: "<sentence for a person>", ...details }.
// Domain code throws AppError; the error plugin turns it into that body.

export type ErrorCode =
  | 'invalid_request'
  | 'login_required'
  | 'reauth_required'
  | 'csrf_failed'
  | 'insufficient_scope'
  | 'scope_not_granted'
  | 'not_found'
  | 'payload_too_large'
  | 'rate_limited'
  | 'upstream_refused'
  | 'upstream_error'
  | 'unavailable'
  | 'upstream_timeout'

const statusOf: Record<ErrorCode, number> = {
  invalid_request: 400,
  login_required: 401,
  reauth_required: 401,
  csrf_failed: 403,
  insufficient_scope: 403,
  scope_not_granted: 403,
  not_found: 404,
  payload_too_large: 413,
  rate_limited: 429,
  // A relayed refusal keeps the service's own 4xx status (AppErrorOptions.status); 400 is the default.
  upstream_refused: 400,
  upstream_error: 502,
  unavailable: 503,
  upstream_timeout: 504
}

/** Where a browser starts a sign-in, under BASE_PATH; every login_required and reauth_required answer names it. */
export function loginUrl (basePath: string): string {
  return `${basePath}/auth/login`
}

/** The one `login_required` answer: no session, or one whose grant is gone. */
export function loginRequired (basePath: string): AppError {
  return new AppError('login_required', 'Please sign in.', { details: { login_url: loginUrl(basePath) } })
}

export interface AppErrorOptions {
  details?: Record<string, unknown>
  /** Overrides the code's status: a relayed refusal keeps the media service's 4xx. */
  status?: number
  /** Seconds, sent as Retry-After (429 and 503). */
  retryAfter?: number
  cause?: unknown
}

export class AppError extends Error {
  readonly code: ErrorCode
  readonly status: number
  readonly details: Record<string, unknown>
  readonly retryAfter: number | undefined

  constructor (code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'AppError'
    this.code = code
    this.status = options.status ?? statusOf[code]
    this.details = options.details ?? {}
    this.retryAfter = options.retryAfter
  }

  toBody (): Record<string, unknown> {
    return { ...this.details, error: this.code, message: this.message }
  }
}
