// openid-client Configurations built from our own settings (no discovery: the media service
// publishes no metadata), one per tenant, all sharing the undici agent of the media client.
import * as oidc from 'openid-client'
import { fetch as undiciFetch, type Dispatcher } from 'undici'
import type { Config, Tenant } from '../config.js'
import { parseScopes } from './scopes.js'

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

/** One Configuration per tenant, whose token requests give up after timeoutMs. */
export function createAuthorizationServers (config: Config, dispatcher: Dispatcher, timeoutMs: number): AuthorizationServers {
  const servers: AuthorizationServers = new Map()
  for (const tenant of config.tenants.values()) servers.set(tenant.name, createAuthorizationServer(config, tenant, dispatcher, timeoutMs))
  return servers
}

function createAuthorizationServer (config: Config, tenant: Tenant, dispatcher: Dispatcher, timeoutMs: number): oidc.Configuration {
  const { clientId, clientSecret, tokenAuthMethod } = config.oauth
  const clientAuth = tokenAuthMethod === 'client_secret_basic' ? oidc.ClientSecretBasic(clientSecret) : oidc.ClientSecretPost(clientSecret)
  // No authorization_response_iss_parameter_supported: a server that sends RFC 9207 `iss` must
  // send exactly our issuer, and one that sends none is accepted.
  const server = new oidc.Configuration(
    { issuer: tenant.issuer, authorization_endpoint: tenant.authorizationUrl, token_endpoint: tenant.tokenUrl },
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
 * undici as openid-client's fetch. The media service's token response is only "probably"
 * carrying token_type (media-service.md B), which openid-client insists on; a successful token
 * response without one is read as Bearer, the only type the service issues.
 */
function tolerantTokenFetch (tokenUrl: string, dispatcher: Dispatcher): oidc.CustomFetch {
  return async (url, options) => {
    const response = await undiciFetch(url, { ...options, dispatcher } as Parameters<typeof undiciFetch>[1]) as unknown as Response
    if (url !== tokenUrl || response.status !== 200) return response
    const text = await response.text()
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return new Response(text, { status: response.status, headers: response.headers })
    }
    if (body !== null && typeof body === 'object' && !('token_type' in body)) {
      (body as Record<string, unknown>).token_type = 'Bearer'
    }
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } })
  }
}

export function buildAuthorizationUrl (server: oidc.Configuration, params: { redirectUri: string, scopes: string[], state: string, codeChallenge: string }): string {
  return oidc.buildAuthorizationUrl(server, {
    redirect_uri: params.redirectUri,
    scope: params.scopes.join(' '),
    state: params.state,
    code_challenge: params.codeChallenge,
    code_challenge_method: 'S256'
  }).href
}

export async function exchangeCode (server: oidc.Configuration, params: { redirectUri: string, query: URLSearchParams, codeVerifier: string, expectedState: string }): Promise<TokenSet> {
  // The URL is rebuilt from our configured redirect URI, never from request headers;
  // openid-client sends it, without the query, as the token request's redirect_uri.
  const currentUrl = new URL(params.redirectUri)
  currentUrl.search = params.query.toString()
  const response = await oidc.authorizationCodeGrant(server, currentUrl, {
    pkceCodeVerifier: params.codeVerifier,
    expectedState: params.expectedState
  })
  return toTokenSet(response)
}

export async function refreshTokens (server: oidc.Configuration, refreshToken: string): Promise<TokenSet> {
  return toTokenSet(await oidc.refreshTokenGrant(server, refreshToken))
}

export const newCodeVerifier = oidc.randomPKCECodeVerifier
export const codeChallengeOf = oidc.calculatePKCECodeChallenge
export const newState = oidc.randomState

function toTokenSet (response: oidc.TokenEndpointResponse): TokenSet {
  const expiresIn = typeof response.expires_in === 'number' ? response.expires_in : Number(response.expires_in ?? DEFAULT_EXPIRES_IN_S)
  const userId = response.user_id
  return {
    accessToken: response.access_token,
    refreshToken: response.refresh_token,
    expiresAt: Date.now() + (Number.isFinite(expiresIn) ? expiresIn : DEFAULT_EXPIRES_IN_S) * 1000,
    grantedScopes: typeof response.scope === 'string' ? parseScopes(response.scope) : undefined,
    userId: typeof userId === 'string' || typeof userId === 'number' ? String(userId) : undefined
  }
}
