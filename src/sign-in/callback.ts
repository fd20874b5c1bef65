// The redirect URI's work, free of HTTP framework code: from what the authorization server sent
// the browser back with (and the browser's login cookies) to one outcome the route turns into an
// answer: a short human page, a redirect back to the site with `auth_error`, or a completed
// sign-in for the session layer to begin. The order of the checks is the contract's
// (docs/reference/http-api.md, "Routes", /auth/callback).
import type { Config } from '../config/config.js'
import type { AuthorizationServers } from '../oauth/authorization-server.js'
import type { LoginTransaction, LoginTransactions } from './login-transactions.js'
import { completeSignIn, LoginReplayedError, type CompletedSignIn, type SignInParts } from './sign-in.js'
import { classifyTokenError } from '../oauth/token-errors.js'
import { StoreUnavailableError } from '../store/key-value-store.js'
import { ATTR, inSpan } from '../tracing/spans.js'

/** What the callback's query holds, once validated (undefined: it did not pass its schema). */
export interface CallbackQuery {
  code?: string
  state?: string
  error?: string
  error_description?: string
  message?: string
  iss?: string
}

/** What happens to the browser's login cookie of this sign-in. */
export type SlotChange =
  | { kind: 'clear', cookieName: string }
  /** Spent: the slot keeps only when its sign-in began (login-transactions.ts, spentValue). */
  | { kind: 'spend', cookieName: string, value: string }

export type CallbackOutcome =
  /** A short human page (src/pages/auth-error-page.ts), by its code. */
  | { kind: 'page', page: string, status: 400 | 503, outcome: string, slot?: SlotChange }
  /** Back to the site's return path, with `auth_error=<code>` (`code`); or, in a popup, its last page. */
  | { kind: 'back', location: string, code: string, outcome: string, slot: SlotChange, transaction: LoginTransaction }
  /** The code was exchanged and the grant stored: the session layer begins the new session. */
  | { kind: 'signed_in', completed: CompletedSignIn, transaction: LoginTransaction, slot: SlotChange }

export interface CallbackParts extends Pick<SignInParts, 'grants' | 'media' | 'onUserInfoFailure'> {
  config: Config
  servers: AuthorizationServers
  transactions: LoginTransactions
  /** Whether the stores have room for one more sign-in. */
  roomForSignIn: () => Promise<boolean>
  /** The code exchange failed (the client refused, or the service): for the operator's log. */
  onExchangeFailure?: (error: unknown, clientRejected: string | undefined) => void
}

export interface CallbackRequest {
  /** The validated query, or undefined when it did not pass its schema. */
  query: CallbackQuery | undefined
  /** The raw query, as the authorization server sent it (what the code exchange checks). */
  rawQuery: URLSearchParams
  cookies: Readonly<Record<string, string | undefined>>
  /** False when the session cookie, Secure, could not be set on this request (plain http). */
  canSetCookie: boolean
  /** The callback's request id (src/request-id.ts): the code exchange and user/info send it along. */
  requestId?: string
}

/** The callback, as the span `sign-in callback` with its outcome (and tenant, once known). */
export async function runCallback (parts: CallbackParts, request: CallbackRequest): Promise<CallbackOutcome> {
  return await inSpan('sign-in callback', {}, async (span) => {
    const outcome = await callbackOutcome(parts, request)
    span.setAttribute(ATTR.outcome, outcome.kind === 'signed_in' ? 'signed_in' : outcome.outcome)
    if (outcome.kind === 'signed_in') span.setAttribute(ATTR.tenant, outcome.transaction.tenant)
    return outcome
  })
}

async function callbackOutcome (parts: CallbackParts, request: CallbackRequest): Promise<CallbackOutcome> {
  const { query } = request
  const page = (code: string, outcome: string, status: 400 | 503 = 400, slot?: SlotChange): CallbackOutcome => ({ kind: 'page', page: code, status, outcome, ...(slot === undefined ? {} : { slot }) })
  const state = query?.state
  if (state === undefined) return page('invalid_state', 'invalid_state')
  let opened
  try {
    opened = await parts.transactions.open(state, request.cookies)
  } catch (error) {
    // Nothing was used up: the same callback URL works once the store is back.
    if (error instanceof StoreUnavailableError) return page('unavailable', 'unavailable', 503)
    throw error
  }
  if (opened.kind === 'other_browser') return page('login_csrf', 'login_csrf')
  if (opened.kind === 'superseded') return page('sign_in_expired', 'superseded')
  if (opened.kind === 'invalid') return page('invalid_state', 'invalid_state', 400, opened.cookieName === undefined ? undefined : { kind: 'clear', cookieName: opened.cookieName })
  const { transaction } = opened
  // A Secure cookie is never set over plain http (a proxy not in TRUST_PROXY, say): no session
  // could come of this sign-in, so its code is not even exchanged.
  if (!request.canSetCookie) return page('insecure_transport', 'insecure_transport')
  // Nothing is spent yet: the same callback works once there is room again.
  if (!await parts.roomForSignIn()) return page('sign_ins_full', 'refused_full', 503)
  // From here on this sign-in ends, one way or another: its slot is spent.
  const spentValue = parts.transactions.spentValue(opened.cookieName, transaction)
  const slot: SlotChange = spentValue === undefined ? { kind: 'clear', cookieName: opened.cookieName } : { kind: 'spend', cookieName: opened.cookieName, value: spentValue }
  const back = (code: string, outcome: string): CallbackOutcome => ({ kind: 'back', location: withAuthError(transaction.returnTo, code), code, outcome, slot, transaction })

  // RFC 9207, checked before anything else the response says (an error included): a response
  // naming another issuer is a mix-up attack, not an outage; a tenant configured to require
  // `iss` (OAUTH_REQUIRE_ISS) refuses a response without it.
  const tenant = parts.config.tenants.get(transaction.tenant)
  if (query?.iss === undefined ? tenant?.requireIss === true : query.iss !== tenant?.issuer) return back('issuer_mismatch', 'issuer_mismatch')
  if (query?.error !== undefined) return back(/^[a-z_]{1,64}$/.test(query.error) ? query.error : 'server_error', 'error')
  if (query?.code === undefined) return back('invalid_request', 'error')

  try {
    const completed = await completeSignIn({
      config: parts.config,
      servers: parts.servers,
      grants: parts.grants,
      media: parts.media,
      claim: async () => await parts.transactions.claim(state, transaction),
      ...(parts.onUserInfoFailure === undefined ? {} : { onUserInfoFailure: parts.onUserInfoFailure })
    }, transaction, state, request.rawQuery, request.requestId)
    return { kind: 'signed_in', completed, transaction, slot }
  } catch (error) {
    if (error instanceof LoginReplayedError) return page('invalid_state', 'invalid_state', 400, slot)
    // The code is spent; with the store down the grant could not be kept: sign in again later.
    if (error instanceof StoreUnavailableError) return page('unavailable', 'unavailable', 503, slot)
    const failure = classifyTokenError(error)
    parts.onExchangeFailure?.(error, failure.kind === 'client_rejected' ? failure.error : undefined)
    return back(failure.kind === 'rejected' ? 'token_exchange_failed' : 'unavailable', 'exchange_failed')
  }
}

/** The return path (or URL on an allowed origin) with `auth_error=<code>` added. */
function withAuthError (returnTo: string, code: string): string {
  const local = returnTo.startsWith('/')
  const url = new URL(returnTo, 'https://return-to.invalid')
  url.searchParams.set('auth_error', code)
  return local ? `${url.pathname}${url.search}${url.hash}` : url.href
}
