// The two halves of the authorization-code flow, free of HTTP framework code: starting a sign-in
// (transaction + authorization URL) and completing it (code exchange, user/info, new grant).
import type { Config } from '../config/config.js'
import type { AuthorizationServers } from '../oauth/authorization-server.js'
import { buildAuthorizationUrl, codeChallengeOf, exchangeCode, newCodeVerifier } from '../oauth/authorization-server.js'
import type { LoginTransaction, LoginTransactions, StartedLogin } from './login-transactions.js'
import { unionScopes } from '../scopes.js'
import type { Grant, GrantStore } from '../grants/grant-store.js'
import type { MediaClient, UserInfo } from '../media/media-client.js'
import { ATTR, inSpan } from '../tracing/spans.js'

export interface StartSignIn {
  tenant: string
  returnTo: string
  /** Scopes the session already holds (kept on re-authorization). */
  grantedScopes: string[]
  /** Scopes the caller adds (`scope=` on /auth/login). */
  addedScopes: string[]
  /** The browser's cookies: its other sign-ins, of which the oldest may have to go. */
  cookies: Readonly<Record<string, string | undefined>>
  /** The signed-in session's id, which a completed sign-in replaces (LoginTransaction.previousSid). */
  previousSid?: string | undefined
  /** That session's key binding, when this browser showed it (LoginTransaction.boundBy). */
  boundBy?: string | undefined
  /** The sign-in runs in a popup, which tells its opener by this nonce (LoginTransaction.popup). */
  popup?: string | undefined
  /** That popup's page is in another site's frame: its verifier's hash (LoginTransaction.framed). */
  framed?: string | undefined
  /** Ask the service for a fresh login (`prompt=login` on /auth/login): a recent sign-in. */
  freshLogin?: boolean
}

export interface SignInStart extends Omit<StartedLogin, 'state'> {
  authorizationUrl: string
}

/** A new sign-in: its sealed transaction (a cookie for the browser) and where to send the browser. */
export async function startSignIn (config: Config, servers: AuthorizationServers, transactions: LoginTransactions, request: StartSignIn): Promise<SignInStart> {
  const server = servers.get(request.tenant)
  if (server === undefined) throw new Error(`unknown tenant ${request.tenant}`)
  const scopes = unionScopes(config.oauth.scopes, request.grantedScopes, request.addedScopes)
  // The span of the whole sign-in's first half; the callback has its own (callback.ts).
  return await inSpan('sign-in', { [ATTR.tenant]: request.tenant, [ATTR.scopes]: scopes }, async () => {
    const codeVerifier = newCodeVerifier()
    const { state, cookie, dropped } = transactions.start({
      tenant: request.tenant,
      codeVerifier,
      returnTo: request.returnTo,
      scopes,
      addedScopes: request.addedScopes.filter((scope) => !request.grantedScopes.includes(scope)),
      ...(request.previousSid === undefined ? {} : { previousSid: request.previousSid }),
      ...(request.boundBy === undefined ? {} : { boundBy: request.boundBy }),
      ...(request.popup === undefined ? {} : { popup: request.popup }),
      ...(request.framed !== undefined && request.popup !== undefined ? { framed: request.framed } : {})
    }, request.cookies)
    const authorizationUrl = buildAuthorizationUrl(server, {
      redirectUri: config.oauth.redirectUri,
      scopes,
      state,
      codeChallenge: await codeChallengeOf(codeVerifier),
      freshLogin: request.freshLogin === true
    })
    return { authorizationUrl, cookie, dropped }
  })
}

export interface CompletedSignIn {
  grant: Grant
  user: UserInfo
  /** Scopes this re-authorization asked to add and did not get. */
  deniedScopes: string[]
}

export interface SignInParts {
  config: Config
  servers: AuthorizationServers
  grants: GrantStore
  media: MediaClient
  /**
   * Marks the transaction used once its code was accepted; false when a racing callback already
   * did (LoginTransactions.claim).
   */
  claim: () => Promise<boolean>
  /** Called when user/info cannot be read; sign-in goes on without the profile. */
  onUserInfoFailure?: (error: unknown) => void
}

/** Two callbacks raced with one transaction and the other won: this one changes nothing. */
export class LoginReplayedError extends Error {
  constructor () {
    super('the sign-in was already completed by another callback')
    this.name = 'LoginReplayedError'
  }
}

export async function completeSignIn (parts: SignInParts, transaction: LoginTransaction, state: string, query: URLSearchParams, requestId?: string): Promise<CompletedSignIn> {
  const { config, servers, grants, media } = parts
  const server = servers.get(transaction.tenant)
  const tenant = config.tenants.get(transaction.tenant)
  if (server === undefined || tenant === undefined) throw new Error(`unknown tenant ${transaction.tenant}`)
  const tokens = await inSpan('code exchange', { [ATTR.tenant]: transaction.tenant }, async () => await exchangeCode(server, {
    redirectUri: config.oauth.redirectUri,
    query,
    codeVerifier: transaction.codeVerifier,
    expectedState: state,
    ...(requestId === undefined ? {} : { requestId })
  }))
  if (!await parts.claim()) throw new LoginReplayedError()
  // Granted scopes come from the token response, else the request (docs/reference/http-api.md).
  const scopes = tokens.grantedScopes ?? transaction.scopes
  let user: UserInfo = { userId: tokens.userId, name: undefined, email: undefined, scopes: undefined }
  try {
    user = await media.getUserInfo(tenant.apiUrl, tokens.accessToken, requestId)
  } catch (error) {
    parts.onUserInfoFailure?.(error)
  }
  const grant = await grants.create({
    tenant: transaction.tenant,
    userId: user.userId ?? tokens.userId,
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    expiresAt: tokens.expiresAt,
    scopes
  })
  return { grant, user, deniedScopes: transaction.addedScopes.filter((scope) => !scopes.includes(scope)) }
}
