// What a route that declares the scopes it needs may act with (plugins/gate.ts checks them and
// sets it on the request): the signed-in session, its grant as read, the grant's tenant, and the
// one way to call the media service with the grant's token.
import type { Tenant } from '../config/tenants.js'
import type { SignedIn } from '../sessions/signed-in.js'
import type { Grant } from './grant-store.js'

export interface Access {
  signedIn: SignedIn
  /** The grant as read for this request (its scopes checked). */
  grant: Grant
  tenant: Tenant
  /**
   * Calls the media service with a valid access token of this grant: refreshed when due, and
   * once more after a refresh when the service says it is invalid. A grant found gone or ended
   * meanwhile ends this sign-in (cookie cleared) before the error goes on.
   */
  withToken: <T>(call: (token: string, grant: Grant) => Promise<T>) => Promise<T>
}

/** The access of a request whose route declares its scopes; any other route has none (a bug). */
export function accessOf (request: { access: Access | undefined, url: string }): Access {
  if (request.access === undefined) throw new Error(`the route of ${request.url.split('?')[0] ?? ''} declares no scopes: it has no access`)
  return request.access
}
