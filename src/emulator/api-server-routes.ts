// Every route of the tenant API origin, in one list: OAuth, the API proper and the test hooks.
import type { EmulatorContext } from './context.js'
import type { Route } from './http/router.js'
import { libraryRoutes } from './api/library-routes.js'
import { singleCallUploadRoute } from './api/single-call-upload-route.js'
import { uploadRegistrationRoutes } from './api/upload-registration-routes.js'
import { userInfoRoute } from './api/user-info-route.js'
import { emulatorHookRoutes } from './hooks/emulator-hook-routes.js'
import { authorizeRoutes } from './oauth/authorize-routes.js'
import { tokenRoute } from './oauth/token-route.js'

export function apiServerRoutes (context: EmulatorContext): Route[] {
  return [
    ...authorizeRoutes(context),
    tokenRoute(context),
    userInfoRoute(context),
    ...uploadRegistrationRoutes(context),
    singleCallUploadRoute(context),
    ...libraryRoutes(context),
    ...emulatorHookRoutes(context)
  ]
}
