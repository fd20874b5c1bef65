// POST /api/upload/id registers an upload and hands out the signed upload URL;
// DELETE /api/upload/id/{ulid} finishes it. Finish is idempotent: clients call it again after
// an auto-finished upload, and must get the same answer. Both take a `private_token` field in
// any body encoding (http/body-parsers.ts, acceptFields).
import type { FastifyInstance } from 'fastify'
import type { EmulatorContext } from '../context.js'
import { faultHook } from '../faults.js'
import { fieldsOf } from '../http/body-parsers.js'
import { notFound } from '../http/emulator-error.js'
import { sendJson } from '../http/replies.js'
import { ulidPattern } from '../ulid.js'
import { fileEntry } from '../upload/file-views.js'
import { signedUploadUrl } from '../upload/signed-upload-url.js'
import { existingFolder } from '../upload/upload-checks.js'
import { parseRegistrationRequest } from '../upload/upload-options.js'
import { authenticate, requireScope } from './authenticate.js'

const registrationSchema = {
  type: 'object',
  required: ['ulid', 'expires', 'expires_in', 'url_upload_direct', 'api'],
  properties: {
    ulid: { type: 'string' },
    expires: { type: 'integer' },
    expires_in: { type: 'integer' },
    url_upload_direct: { type: 'string' },
    api: {
      type: 'object',
      required: ['rel', 'upload', 'finish'],
      properties: { rel: { type: 'string' }, upload: { type: 'string' }, finish: { type: 'string' } }
    }
  }
} as const

export function uploadRegistrationRoutes (app: FastifyInstance, context: EmulatorContext): void {
  app.post('/api/upload/id', { onRequest: faultHook(context.faults, 'upload_id'), schema: { response: { 200: registrationSchema } } }, async (request, reply) => {
    const fields = fieldsOf(request)
    const caller = authenticate(context, request, fields.private_token)
    requireScope(caller, 'upload')
    const parsed = parseRegistrationRequest(fields)
    existingFolder(context, caller.user.name, parsed.folderId)
    const registration = context.uploads.register({ userName: caller.user.name, ...parsed }, context.settings.uploadTtl)
    const expires = Math.ceil(registration.expiresAt / 1000)
    const uploadUrl = signedUploadUrl(context.uploadOrigin, registration.ulid, expires, context.settings.signingKey)
    context.counters.registrations += 1
    return sendJson(reply, 200, {
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
  })

  app.delete<{ Params: { ulid: string } }>('/api/upload/id/:ulid', { onRequest: faultHook(context.faults, 'finish') }, async (request, reply) => {
    const caller = authenticate(context, request, fieldsOf(request).private_token)
    requireScope(caller, 'upload')
    const { ulid } = request.params
    const registration = ulidPattern.test(ulid) ? context.uploads.registration(ulid) : undefined
    // Another user's registration is answered exactly like a missing one: no probing.
    if (registration === undefined || registration.userName !== caller.user.name) throw notFound('No such upload.')
    registration.finished = true
    context.counters.finishes += 1
    const files = registration.fileIds
      .map((fileId) => context.uploads.file(fileId))
      .filter((file) => file !== undefined)
      .map((file) => fileEntry(context, file))
    return sendJson(reply, 200, { status: 'success', files })
  })
}
