// Every call to the media service made on someone's behalf goes this way, a browser's request
// and a webhook's follow-up alike: with an access token of the grant that is valid now (refreshed
// first when due), and once more after a refresh when the service says that token is invalid
// before its expiry (a 401 `invalid_token`: refused before acting, so a retried write is not done
// twice). Any other failure is the caller's to handle.
import type { Grant, StoredGrant } from './grant-store.js'
import type { TokenRefresher } from './token-refresher.js'
import { UpstreamError } from '../media/upstream-error.js'

export async function withAccessToken<T> (
  tokens: TokenRefresher,
  grantId: string,
  call: (token: string, grant: Grant) => Promise<T>,
  /** The grant as the caller already read it (saves a store round trip while it is fresh). */
  current?: StoredGrant,
  /** The id of the request the calls are made for (src/request-id.ts), for a refresh to send along. */
  requestId?: string
): Promise<T> {
  const first = await tokens.accessToken(grantId, { current, requestId })
  try {
    return await call(first.grant.accessToken, first.grant)
  } catch (error) {
    if (!(error instanceof UpstreamError) || !error.isUnauthorized) throw error
    const second = await tokens.accessToken(grantId, { rejectedToken: first.grant.accessToken, requestId })
    return await call(second.grant.accessToken, second.grant)
  }
}
