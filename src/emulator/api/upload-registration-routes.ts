// POST /api/upload/id registers an upload and hands out the signed upload URL;
// DELETE /api/upload/id/{ulid} finishes it. Finish is idempotent: clients call it again after
// an auto-finished upload, and must get the same answer.
import type { EmulatorContext } from '../context.js'
import { notFound } from '../http/emulator-error.js'
import { sendJson } from '../http/responses.js'
import type { Route, RouteContext } from '../http/router.js'
import { ulidPattern } from '../ulid.js'
import { fileEntry } from '../upload/file-views.js'
import { signedUploadUrl } from '../upload/signed-upload-url.js'
import { parseRegistrationRequest } from '../upload/upload-options.js'
import { requireScope } from './authenticate.js'
import { authenticatedRequest } from './authenticated-request.js'

export function uploadRegistrationRoutes (context: EmulatorContext): Route[] {
  const register = async (route: RouteContext): Promise<void> => {
    const { caller, fields } = await authenticatedRequest(context, route)
    requireScope(caller, 'upload')
    const request = parseRegistrationRequest(fields)
    const registration = context.uploads.register({ userName: caller.user.name, ...request }, context.settings.uploadTtl)
    const expires = Math.ceil(registration.expiresAt / 1000)
    const uploadUrl = signedUploadUrl(context.uploadOrigin, registration.ulid, expires, context.settings.signingKey)
    context.counters.registrations += 1
    sendJson(route.res, 200, {
      ulid: registration.ulid,
      expires,
      expires_in: Math.ceil((registration.expiresAt - Date.now()) / 1000),
      url_upload_direct: uploadUrl,
      api: {
        rel: 'upload',
        upload: uploadUrl,
        finish: `${context.baseUrl}/api/upload/id/${registration.ulid}`
      }
    })
  }

  const finish = async (route: RouteContext): Promise<void> => {
    const { caller } = await authenticatedRequest(context, route)
    requireScope(caller, 'upload')
    const ulid = route.params.ulid as string
    const registration = ulidPattern.test(ulid) ? context.uploads.registration(ulid) : undefined
    // Another user's registration is answered exactly like a missing one: no probing.
    if (registration === undefined || registration.userName !== caller.user.name) throw notFound('No such upload.')
    registration.finished = true
    context.counters.finishes += 1
    const files = registration.fileIds
      .map((fileId) => context.uploads.file(fileId))
      .filter((file) => file !== undefined)
      .map((file) => fileEntry(context, file))
    sendJson(route.res, 200, { status: 'success', files })
  }

  return [
    { method: 'POST', path: '/api/upload/id', faultEndpoint: 'upload_id', handler: register },
    { method: 'DELETE', path: '/api/upload/id/:ulid', faultEndpoint: 'finish', handler: finish }
  ]
}
