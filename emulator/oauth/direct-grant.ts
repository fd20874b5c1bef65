// Tokens for a user without an authorization request: what a code exchange would have issued to
// the emulator's own client for these scopes (cut to what the user is entitled to), for tests
// that need someone signed in and are not about signing in. The real service has nothing like
// it; it is reachable only through the test hooks (hooks/emulator-hook-routes.ts) and
// RunningEmulator.grantTokens.
import type { EmulatorContext } from '../context.js'
import { findUser } from '../context.js'
import { badRequest } from '../http/emulator-error.js'
import { formatScopes, intersectScopes } from '../scopes.js'

export interface DirectGrant {
  access_token: string
  refresh_token: string
  token_type: 'Bearer'
  expires_in: number
  scope: string
  user_id: string
}

export function grantDirectly (context: EmulatorContext, userName: string, scopes: readonly string[]): DirectGrant {
  const user = findUser(context, userName)
  if (user === undefined) throw badRequest('user must be the name of a fixture user.')
  const granted = intersectScopes(scopes, user.scopes)
  const family = { familyId: context.tokens.startFamily(), userName: user.name, clientId: context.settings.clientId }
  const access = context.tokens.issue('access', family, granted, context.settings.accessTokenTtl)
  const refresh = context.tokens.issue('refresh', family, granted, context.settings.refreshTokenTtl)
  return {
    access_token: access.token,
    refresh_token: refresh.token,
    token_type: 'Bearer',
    expires_in: Math.round((access.expiresAt - access.issuedAt) / 1000),
    scope: formatScopes(granted),
    user_id: String(user.userId)
  }
}
