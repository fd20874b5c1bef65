// The routes of the upload origin: the direct upload and its CORS preflight. Nothing else lives
// on this origin, as on the real service's separate upload host.
import type { EmulatorContext } from '../context.js'
import type { Route } from '../http/router.js'
import { answerPreflight } from './cors.js'
import { directUploadRoute } from './direct-upload-route.js'

export function uploadServerRoutes (context: EmulatorContext): Route[] {
  return [
    directUploadRoute(context),
    { method: 'OPTIONS', path: '/upload/:ulid', handler: ({ req, res }) => { answerPreflight(req, res, context.settings.corsOrigins) } }
  ]
}
