// MediaBffError, the one error of this module, and how answers become one.
import { isRecord } from './json.js'
import type { UpstreamFailure } from './contract.js'

/**
 * What the media service said when it refused a relayed call (media-bff passes it on): the
 * contract's shape. Every field is the service's text, untrusted: show it with `textContent`,
 * never as HTML (`innerHTML`). This module uses `user_message` as the error's message when present.
 */
export type { UpstreamFailure } from './contract.js'

/**
 * Every failure of this client. `code` is media-bff's error code (`login_required`,
 * `reauth_required`, `insufficient_scope`, `scope_not_granted`, `csrf_failed`, `not_found`,
 * `invalid_request`, `rate_limited`, `upstream_refused`, `upstream_error`, `unavailable`, ...),
 * the upload host's `error` for a refused file, or one of this module's own: `network_error`
 * (nothing came back: offline, CORS, DNS), `aborted` (the call's signal), `timeout` (its
 * timeoutMs passed), `bad_response`, and `invalid_request` with status 0 for a call refused
 * before it was sent (an id that is not a whole number, 0 or more).
 * `message` is always a sentence that may be shown to a person: for a relayed refusal, the
 * service's own `user_message` when it gave one. Like `upstream`, it is untrusted text (it can
 * come from the media service or the upload host): put it on the page with `textContent`, never
 * as HTML (`innerHTML`, `insertAdjacentHTML`).
 */
export class MediaBffError extends Error {
  readonly status: number
  readonly code: string
  readonly details: Record<string, unknown>
  /** Where to send the browser to sign in again (`login_required`, `reauth_required`). */
  readonly loginUrl: string | undefined
  /** Where to send the browser to grant the missing scopes (`insufficient_scope`). */
  readonly reauthorizeUrl: string | undefined
  readonly requiredScopes: string[]
  /** For a call media-bff relayed to the media service: what the service answered. */
  readonly upstream: UpstreamFailure | undefined
  /** Seconds to wait before trying again, when media-bff said (429 `rate_limited`, 503 `unavailable`). */
  readonly retryAfter: number | undefined

  /** `root`: media-bff's root (urls.ts, bffRoot), which the links in `details` are on. */
  constructor (status: number, code: string, message: string, details: Record<string, unknown> = {}, root = '', retryAfter?: number) {
    super(message)
    this.name = 'MediaBffError'
    this.status = status
    this.code = code
    this.details = details
    this.loginUrl = typeof details.login_url === 'string' ? onBff(root, details.login_url) : undefined
    this.reauthorizeUrl = typeof details.reauthorize_url === 'string' ? onBff(root, details.reauthorize_url) : undefined
    this.requiredScopes = Array.isArray(details.required_scopes) ? details.required_scopes.filter((scope): scope is string => typeof scope === 'string') : []
    this.upstream = readUpstream(details.upstream)
    this.retryAfter = retryAfter
  }

  /** The user must sign in (again) before anything else works. */
  get needsSignIn (): boolean {
    return this.code === 'login_required' || (this.code === 'reauth_required' && !this.needsRecentSignIn)
  }

  /**
   * A risky act (deleting, a share link, ending another session) needs a sign-in more recent than
   * the session's: everything else still works. `loginUrl` signs in again and comes back.
   */
  get needsRecentSignIn (): boolean {
    return this.code === 'reauth_required' && this.details.reason === 'recent_sign_in'
  }
}

/** media-bff's error answer as a MediaBffError. */
export function bffError (status: number, body: Record<string, unknown> | undefined, root: string, retryAfter?: number): MediaBffError {
  const code = typeof body?.error === 'string' ? body.error : `http_${status}`
  // A relayed refusal may carry the service's own sentence for people; it says more than ours.
  const userMessage = readUpstream(body?.upstream)?.user_message
  const message = userMessage ?? (typeof body?.message === 'string' ? body.message : `media-bff answered with HTTP ${status}.`)
  const { error: _error, message: _message, ...details } = body ?? {}
  return new MediaBffError(status, code, message, details, root, retryAfter)
}

/** A mistake in the call itself, found before anything was sent (so status 0). */
export function clientError (message: string, field: string): MediaBffError {
  return new MediaBffError(0, 'invalid_request', message, { field })
}

export function abortedError (what = 'The call'): MediaBffError {
  return new MediaBffError(0, 'aborted', `${what} was cancelled.`)
}

export function timeoutError (what = 'media-bff'): MediaBffError {
  return new MediaBffError(0, 'timeout', `${what} did not answer in time. Try again.`)
}

function readUpstream (source: unknown): UpstreamFailure | undefined {
  if (!isRecord(source)) return undefined
  const upstream: UpstreamFailure = {}
  for (const key of ['endpoint', 'error', 'error_description', 'user_message'] as const) {
    const field = source[key]
    if (typeof field === 'string' && field !== '') upstream[key] = field
  }
  if (typeof source.status === 'number') upstream.status = source.status
  return upstream
}

/**
 * media-bff answers with paths on its own origin, which carry its BASE_PATH; make them usable
 * from the page, also when media-bff lives on another origin. Anything but such a path or an
 * http(s) URL is dropped: these end up in links and location.
 */
export function onBff (root: string, path: string): string | undefined {
  if (path.startsWith('/') && !path.startsWith('//') && !path.startsWith('/\\')) return `${root}${belowRoot(root, path)}`
  return /^https?:\/\//i.test(path) ? path : undefined
}

/**
 * A path media-bff handed out, as one below `root`. Under a BASE_PATH its paths carry it
 * (/media-bff/uploads/…/finish) and so does a root that names it (/media-bff, or a URL ending in
 * it): it is taken off once, so root and path never repeat it.
 */
export function belowRoot (root: string, path: string): string {
  const rootPath = new URL(root === '' ? '/' : root, 'https://root.invalid/').pathname.replace(/\/+$/, '')
  return rootPath !== '' && path.startsWith(`${rootPath}/`) ? path.slice(rootPath.length) : path
}

/** The origin of a root on another origin ('https://media.example.org'); '' for this page's. */
export function originOf (root: string): string {
  return /^https?:\/\//i.test(root) ? new URL(root).origin : ''
}
