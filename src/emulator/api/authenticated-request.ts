// Reads an API call's small body (any encoding) and authenticates it, so routes get the caller
// and the fields in one step and a `private_token` form field works everywhere.
import type { EmulatorContext } from '../context.js'
import { readBodyFields, type BodyFields } from '../http/read-body.js'
import type { RouteContext } from '../http/router.js'
import { authenticate, type Caller } from './authenticate.js'

export async function authenticatedRequest (context: EmulatorContext, route: RouteContext): Promise<{ caller: Caller, fields: BodyFields }> {
  const fields = await readBodyFields(route.req)
  const caller = authenticate(context, route.req, fields.private_token)
  return { caller, fields }
}
