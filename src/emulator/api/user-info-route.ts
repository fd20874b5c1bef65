// GET /api/user/info: the caller's profile and entitlements. Any valid token may read it (the
// BFF reads entitlements right after sign-in, whatever was granted).
import type { EmulatorContext } from '../context.js'
import { sendJson } from '../http/responses.js'
import type { Route } from '../http/router.js'
import { authenticate } from './authenticate.js'

export function userInfoRoute (context: EmulatorContext): Route {
  return {
    method: 'GET',
    path: '/api/user/info',
    faultEndpoint: 'user_info',
    handler: ({ req, res }) => {
      const { user } = authenticate(context, req)
      context.counters.userInfo += 1
      sendJson(res, 200, {
        user_id: user.userId,
        username: user.name,
        name: user.fullName,
        email: user.email,
        scopes: [...user.scopes]
      })
    }
  }
}
