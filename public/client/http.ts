// One JSON call to media-bff with the session cookie: a deadline and the caller's abort signal on
// every call, Retry-After honoured once on reads when the wait is short, and non-2xx answers as
// MediaBffError.
import { abortedError, bffError, MediaBffError, timeoutError } from './errors.js'
import { parseJson } from './json.js'
import type { CallOptions } from './types.js'
import { linkOnBff, routeUrl } from './urls.js'

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE'

/** The header media-bff asks of every call a page makes to it, reads included. */
export const CSRF_HEADER = { 'x-csrf': '1' } as const

export interface CallSettings {
  /** media-bff's root (urls.ts, bffRoot): '' for this page's origin without a base path. */
  root: string
  /** Default deadline of a call. */
  timeoutMs: number
  /** Told of every answer saying the sign-in is over (login_required, reauth_required). */
  onSignInLost?: (error: MediaBffError) => void
  /**
   * Asks for the scopes a call was refused for in a popup (CallOptions.consent): true once they
   * are granted, and the call is made once more.
   */
  askConsent?: (scopes: string[]) => Promise<boolean>
}

/**
 * A call, and with `consent: 'popup'` the same call once more after the person gave the permission
 * it was refused for (403 insufficient_scope) in a popup.
 */
export async function withConsent<T> (settings: CallSettings, options: CallOptions | undefined, call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    if (options?.consent !== 'popup' || settings.askConsent === undefined || !(error instanceof MediaBffError) || error.code !== 'insufficient_scope' || error.requiredScopes.length === 0) throw error
    if (!await settings.askConsent(error.requiredScopes)) throw error
    return await call()
  }
}

/**
 * A read answered 429 or 503 with a Retry-After of at most this is tried once more after the
 * wait (when the deadline allows); longer waits, and every write, are left to the page
 * (MediaBffError.retryAfter): a write is never sent twice behind its back.
 */
const MAX_AUTOMATIC_WAIT_S = 5

/** What a call goes to: a route under media-bff's root ('/auth/session'), or a link media-bff handed out. */
export type BffTarget = string | { link: string, field: string }

export async function callBff<T> (settings: CallSettings, method: HttpMethod, target: BffTarget, body?: unknown, options: CallOptions & { emptyAnswer?: boolean } = {}): Promise<T> {
  const { root } = settings
  const url = typeof target === 'string' ? routeUrl(root, target) : linkOnBff(root, target.link, target.field)
  const timeoutMs = options.timeoutMs ?? settings.timeoutMs
  const deadline = Date.now() + timeoutMs
  const controller = new AbortController()
  let timedOut = false
  const timer = setTimeout(() => { timedOut = true; controller.abort() }, timeoutMs)
  const abort = (): void => { controller.abort() }
  options.signal?.addEventListener('abort', abort, { once: true })
  // media-bff refuses every call without X-CSRF (RFC 10017): a custom header cannot be sent by a
  // cross-site form or link, and a cross-site script only after a CORS preflight media-bff grants
  // to its allowed origins alone.
  const headers: Record<string, string> = { accept: 'application/json', ...CSRF_HEADER }
  // No content-type without a body: media-bff reads an empty JSON body as malformed.
  if (body !== undefined) headers['content-type'] = 'application/json'
  try {
    if (options.signal?.aborted === true) throw abortedError()
    for (let attempt = 1; ; attempt++) {
      const response = await fetch(url, {
        method,
        headers,
        credentials: 'include',
        signal: controller.signal,
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      const text = await response.text()
      const parsed = parseJson(text)
      if (!response.ok) {
        const retryAfter = retryAfterSeconds(response.headers.get('retry-after'))
        const worthWaiting = method === 'GET' && attempt === 1 && (response.status === 429 || response.status === 503) &&
          retryAfter !== undefined && retryAfter <= MAX_AUTOMATIC_WAIT_S && Date.now() + retryAfter * 1000 < deadline
        if (worthWaiting) {
          await pause(retryAfter * 1000, controller.signal)
          continue
        }
        const error = bffError(response.status, parsed, root, retryAfter)
        if (error.needsSignIn) settings.onSignInLost?.(error)
        throw error
      }
      if (options.emptyAnswer === true && text.trim() === '') return undefined as T
      if (parsed === undefined) throw new MediaBffError(response.status, 'bad_response', 'media-bff answered something this page cannot read.', {}, root)
      return parsed as T
    }
  } catch (error) {
    if (error instanceof MediaBffError) throw error
    if (timedOut) throw timeoutError()
    if (options.signal?.aborted === true) throw abortedError()
    throw new MediaBffError(0, 'network_error', 'media-bff cannot be reached. Check your connection and try again.', { cause: String(error) }, root)
  } finally {
    clearTimeout(timer)
    options.signal?.removeEventListener('abort', abort)
  }
}

/** Retry-After in whole seconds, when it is a sane number of seconds. */
function retryAfterSeconds (value: string | null): number | undefined {
  if (value === null || !/^\s*\d{1,5}\s*$/.test(value)) return undefined
  return Number(value)
}

async function pause (ms: number, signal: AbortSignal): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => { signal.removeEventListener('abort', stop); resolve() }, ms)
    const stop = (): void => { clearTimeout(timer); reject(new Error('aborted')) }
    signal.addEventListener('abort', stop, { once: true })
  })
}
