// The OAuth 2 client: its credentials, the scopes every sign-in asks for, how it authenticates at
// the token endpoint, its one redirect URI (src/config/mount.ts), and when tokens are refreshed.
import type { DeclaredReader } from './declared-reader.js'
import type { Mount } from './mount.js'
import { isScopeToken, parseScopes } from '../scopes.js'

export type TokenAuthMethod = 'client_secret_post' | 'client_secret_basic'

export interface OAuthClient {
  clientId: string
  clientSecret: string
  scopes: string[]
  tokenAuthMethod: TokenAuthMethod
  redirectUri: string
  /** The callback route's path below basePath: OAUTH_REDIRECT_URI's own (src/config/mount.ts). */
  callbackPath: string
  /** Plain http to the authorization server and API (development and the emulator only). */
  allowInsecureRequests: boolean
  refreshSkewMs: number
  /** Lease of the cross-instance refresh lock, renewed while a refresh runs. */
  refreshLockLeaseMs: number
}

export function readOAuthClient (read: DeclaredReader, mount: Mount, allowInsecureRequests: boolean): OAuthClient {
  const scopes = parseScopes(read.string('OAUTH_SCOPES'))
  const malformed = scopes.filter((scope) => !isScopeToken(scope))
  if (malformed.length > 0) read.problem('OAUTH_SCOPES', `${malformed.length} entr${malformed.length === 1 ? 'y is' : 'ies are'} not a scope (letters, digits and punctuation but " and \\, at most 64 characters each)`)
  return {
    clientId: read.required('OAUTH_CLIENT_ID'),
    clientSecret: read.required('OAUTH_CLIENT_SECRET'),
    scopes,
    tokenAuthMethod: read.choice('OAUTH_TOKEN_AUTH_METHOD') as TokenAuthMethod,
    redirectUri: mount.redirectUri,
    callbackPath: mount.callbackPath,
    allowInsecureRequests,
    refreshSkewMs: read.duration('TOKEN_REFRESH_SKEW'),
    refreshLockLeaseMs: read.duration('REFRESH_LOCK_LEASE')
  }
}
