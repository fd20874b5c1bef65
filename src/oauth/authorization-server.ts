// openid-client Configurations built from our own settings (no discovery: the media service
// publishes no metadata), one per tenant, all sharing the undici agent of the media client.
import * as oidc from 'openid-client'
import { fetch as undiciFetch, type Dispatcher } from 'undici'
import type { Config, Tenant } from '../config/config.js'
import { parseScopes, scopesFrom } from '../scopes.js'
import { readCappedText } from '../capped-body.js'
import { classifyTokenError } from './token-errors.js'
import { TokenEndpointError } from './token-failure.js'
import { withRequestId } from '../request-id.js'

export interface TokenSet {
  accessToken: string
  refreshToken: string | undefined
  /** Epoch milliseconds. */
  expiresAt: number
  /** Scopes the token response says were granted; undefined when it says nothing. */
  grantedScopes: string[] | undefined
  userId: string | undefined
}

export type AuthorizationServers = Map<string, oidc.Configuration>

/** Without expires_in we assume the service's documented access-token lifetime (1 hour). */
const DEFAULT_EXPIRES_IN_S = 3600
/** A longer claimed lifetime is not believed: the token is refreshed at least daily. */
const MAX_EXPIRES_IN_S = 86_400

/** One Configuration per tenant, whose token requests give up after timeoutMs. */
export function createAuthorizationServers (config: Config, dispatcher: Dispatcher, timeoutMs: number): AuthorizationServers {
  const servers: AuthorizationServers = new Map()
  for (const tenant of config.tenants.values()) servers.set(tenant.name, createAuthorizationServer(config, tenant, dispatcher, timeoutMs))
  return servers
}

function createAuthorizationServer (config: Config, tenant: Tenant, dispatcher: Dispatcher, timeoutMs: number): oidc.Configuration {
  const { clientId, clientSecret, tokenAuthMethod } = config.oauth
  const clientAuth = tokenAuthMethod === 'client_secret_basic' ? oidc.ClientSecretBasic(clientSecret) : oidc.ClientSecretPost(clientSecret)
  // RFC 9207: a server that sends `iss` must send exactly our issuer; one that sends none is
  // accepted unless the tenant requires it (OAUTH_REQUIRE_ISS).
  const server = new oidc.Configuration(
    { issuer: tenant.issuer, authorization_endpoint: tenant.authorizationUrl, token_endpoint: tenant.tokenUrl, authorization_response_iss_parameter_supported: tenant.requireIss },
    clientId,
    { client_secret: clientSecret },
    clientAuth
  )
  server.timeout = Math.max(1, Math.ceil(timeoutMs / 1000))
  server[oidc.customFetch] = tolerantTokenFetch(tenant.tokenUrl, dispatcher)
  if (config.oauth.allowInsecureRequests && hasHttpEndpoint(tenant)) oidc.allowInsecureRequests(server)
  return server
}

function hasHttpEndpoint (tenant: Tenant): boolean {
  return [tenant.authorizationUrl, tenant.tokenUrl].some((url) => url.startsWith('http:'))
}

/**
 * openid-client takes no headers per call, so a token request's request id (src/request-id.ts)
 * rides to the fetch below as this extra parameter of the grant, which the fetch takes out of the
 * body and sends as X-Request-Id instead: the token endpoint never sees the parameter.
 */
const REQUEST_ID_PARAMETER = 'media_bff_request_id'

/**
 * undici as openid-client's fetch, sending the request id in its header, with two guards. Every
 * token-endpoint body is read with a size cap (openid-client would read any size), so a hostile or
 * broken endpoint costs bounded memory and ends as a transient failure. And the media service's
 * token response is only "probably" carrying token_type (seen in the service's SDK, not
 * published), which openid-client insists on; a successful token response without one is read as
 * Bearer, the only type the service issues.
 */
function tolerantTokenFetch (tokenUrl: string, dispatcher: Dispatcher): oidc.CustomFetch {
  return async (url, options) => {
    const response = await undiciFetch(url, { ...requestIdInHeader(options), dispatcher } as Parameters<typeof undiciFetch>[1]) as unknown as Response
    const text = response.body === null ? '' : await readCappedText(response.body as unknown as AsyncIterable<Uint8Array>)
    const headers = new Headers(response.headers)
    headers.delete('content-length')
    headers.delete('content-encoding')
    if (url !== tokenUrl || response.status !== 200) return new Response(text, { status: response.status, statusText: response.statusText, headers })
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return new Response(text, { status: response.status, headers })
    }
    if (body !== null && typeof body === 'object' && !('token_type' in body)) {
      (body as Record<string, unknown>).token_type = 'Bearer'
    }
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } })
  }
}

/** The request as openid-client made it, its request id moved from the body to the header. */
function requestIdInHeader (options: oidc.CustomFetchOptions): oidc.CustomFetchOptions {
  const { body } = options
  if (!(body instanceof URLSearchParams) || !body.has(REQUEST_ID_PARAMETER)) return options
  const form = new URLSearchParams(body)
  form.delete(REQUEST_ID_PARAMETER)
  return { ...options, body: form, headers: withRequestId({ ...options.headers }, body.get(REQUEST_ID_PARAMETER) ?? undefined) }
}

export function buildAuthorizationUrl (server: oidc.Configuration, params: { redirectUri: string, scopes: string[], state: string, codeChallenge: string, freshLogin?: boolean }): string {
  return oidc.buildAuthorizationUrl(server, {
    redirect_uri: params.redirectUri,
    scope: params.scopes.join(' '),
    state: params.state,
    code_challenge: params.codeChallenge,
    code_challenge_method: 'S256',
    // A recent sign-in: the person proves who they are again, whatever session the service keeps
    // (prompt=login and max_age=0, as OpenID Connect names them; a service that knows neither
    // ignores both).
    ...(params.freshLogin === true ? { prompt: 'login', max_age: '0' } : {})
  }).href
}

export async function exchangeCode (server: oidc.Configuration, params: { redirectUri: string, query: URLSearchParams, codeVerifier: string, expectedState: string, requestId?: string }): Promise<TokenSet> {
  // The URL is rebuilt from our configured redirect URI, never from request headers;
  // openid-client sends it, without the query, as the token request's redirect_uri.
  const currentUrl = new URL(params.redirectUri)
  currentUrl.search = params.query.toString()
  const response = await oidc.authorizationCodeGrant(server, currentUrl, {
    pkceCodeVerifier: params.codeVerifier,
    expectedState: params.expectedState
  }, requestIdParameter(params.requestId))
  return toTokenSet(response)
}

/** New tokens for a refresh token; a failure comes out classified, as a TokenEndpointError. */
export async function refreshTokens (server: oidc.Configuration, refreshToken: string, requestId?: string): Promise<TokenSet> {
  let response: oidc.TokenEndpointResponse
  try {
    response = await oidc.refreshTokenGrant(server, refreshToken, requestIdParameter(requestId))
  } catch (error) {
    throw new TokenEndpointError(classifyTokenError(error))
  }
  return toTokenSet(response)
}

function requestIdParameter (requestId: string | undefined): Record<string, string> | undefined {
  return requestId === undefined ? undefined : { [REQUEST_ID_PARAMETER]: requestId }
}

export const newCodeVerifier = oidc.randomPKCECodeVerifier
export const codeChallengeOf = oidc.calculatePKCECodeChallenge

/** The token response as input: lifetimes clamped, scopes well-formed and few, ids plain. */
function toTokenSet (response: oidc.TokenEndpointResponse): TokenSet {
  const claimed = typeof response.expires_in === 'number' ? response.expires_in : Number(response.expires_in ?? DEFAULT_EXPIRES_IN_S)
  const expiresIn = Number.isFinite(claimed) && claimed > 0 ? Math.min(claimed, MAX_EXPIRES_IN_S) : DEFAULT_EXPIRES_IN_S
  const userId = response.user_id
  return {
    accessToken: response.access_token,
    refreshToken: typeof response.refresh_token === 'string' && response.refresh_token !== '' ? response.refresh_token : undefined,
    expiresAt: Date.now() + expiresIn * 1000,
    grantedScopes: typeof response.scope === 'string' ? scopesFrom(parseScopes(response.scope)) : undefined,
    userId: (typeof userId === 'string' && /^[\w.@-]{1,128}$/.test(userId)) || (typeof userId === 'number' && Number.isSafeInteger(userId)) ? String(userId) : undefined
  }
}
