// Direct upload: register with the media service for the browser, and finish afterwards.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@fastify/type-provider-typebox'
import { AppError } from '../src/errors.js'
import { accessOf } from '../src/grants/access.js'
import { hasUnsafeCharacters, unsafeTextMessage } from '../src/safe-text.js'
import { checkUploadUrl, refuseUploadUrl, registrationFields, UPLOAD_SCOPE } from '../src/uploads/upload-policy.js'
import { ATTR, inSpan } from '../src/tracing/spans.js'
import { ErrorBody, MediaFile } from './schemas.js'

const MAX_BYTES = Number.MAX_SAFE_INTEGER

const RegisterBody = Type.Object({
  folder_id: Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'Target folder; 0 is the home folder' }),
  title: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'The files\' title; no control or bidirectional characters' })),
  options: Type.Optional(Type.Object({
    max_filesize: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_BYTES })),
    max_files: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
    max_size: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_BYTES })),
    file_extensions: Type.Optional(Type.Union([
      Type.Array(Type.String({ pattern: '^\\.?[A-Za-z0-9]{1,16}$' }), { maxItems: 50 }),
      Type.String({ pattern: '^\\.?[A-Za-z0-9]{1,16}(,\\s*\\.?[A-Za-z0-9]{1,16}){0,49}$' })
    ])),
    no_transcode: Type.Optional(Type.Boolean()),
    autofinish: Type.Optional(Type.Boolean())
  }, { additionalProperties: false }))
}, { additionalProperties: false })

const Registration = Type.Object({
  ulid: Type.String(),
  expires: Type.Number(),
  expires_in: Type.Number(),
  url_upload_direct: Type.String(),
  api: Type.Object({
    rel: Type.Optional(Type.String()),
    upload: Type.Optional(Type.String()),
    finish: Type.String()
  }),
  finish_url: Type.String(),
  autofinish: Type.Boolean({ description: 'Whether the service finishes the upload by itself after one file (what was asked of it; its default is on). The browser module then still finishes it through finish_url, so the person\'s pages hear of the file.' })
})

const FinishParams = Type.Object({ ulid: Type.String({ pattern: '^[0-9A-Za-z]{1,64}$' }) })

const FinishResult = Type.Object({
  status: Type.String(),
  files: Type.Array(MediaFile)
})

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 413: ErrorBody, 429: ErrorBody, 502: ErrorBody, 503: ErrorBody, 504: ErrorBody }

const routes: FastifyPluginAsyncTypebox = async (app) => {
  const { config } = app

  app.post('/uploads/register', {
    schema: { tags: ['uploads'], summary: 'Register an upload; the browser then posts files to url_upload_direct', body: RegisterBody, response: { 200: Registration, ...errors } },
    config: { limit: 'register', scopes: [UPLOAD_SCOPE] }
  }, async (request, reply) => {
    const { folder_id: folderId, title, options } = request.body
    if (title !== undefined && hasUnsafeCharacters(title)) {
      throw new AppError('invalid_request', `Invalid body: ${unsafeTextMessage('title')}`, { details: { field: 'title', location: 'body' } })
    }
    const fields = registrationFields(config.upload, folderId, title, options)
    const { signedIn, tenant, withToken } = accessOf(request)
    return await inSpan('upload register', { [ATTR.tenant]: tenant.name, [ATTR.folderId]: folderId }, async (span) => {
      const record = await withToken(async (token) => {
        const registered = await app.media.registerUpload(tenant.apiUrl, token, fields, request.id)
        refuseUploadUrl(checkUploadUrl(registered.url_upload_direct, tenant.apiUrl, config.upload.allowedHosts))
        return registered
      }).catch((error: unknown) => {
        app.metrics.registration('failed')
        throw error
      })
      span.setAttribute(ATTR.ulid, record.ulid)
      const expiresAt = Date.now() + record.expires_in * 1000
      await app.registrations.remember(signedIn.uploadOwner, { ulid: record.ulid, finishUrl: record.api.finish, tenant: tenant.name, expiresAt })
      app.metrics.registration('registered')
      // The answer carries a signed, pre-authorised upload URL: no cache may keep it.
      reply.header('cache-control', 'no-store')
      return { ...record, finish_url: `${app.config.basePath}/uploads/${record.ulid}/finish`, autofinish: options?.autofinish ?? true }
    })
  })

  app.post('/uploads/:ulid/finish', {
    schema: { tags: ['uploads'], summary: 'Finish an upload this session registered', params: FinishParams, response: { 200: FinishResult, ...errors } },
    config: { limit: 'finish', scopes: [UPLOAD_SCOPE] }
  }, async (request) => {
    const { ulid } = request.params
    const { signedIn, tenant, withToken } = accessOf(request)
    return await inSpan('upload finish', { [ATTR.tenant]: tenant.name, [ATTR.ulid]: ulid }, async (span) => {
      // Only a registration made on the grant's tenant is found.
      const remembered = await app.registrations.find(signedIn.uploadOwner, ulid, tenant.name)
      if (remembered === undefined) {
        throw new AppError('not_found', 'This upload was not registered by your session, or it has expired.')
      }
      const result = await withToken(async (token) => await app.media.finishUpload(remembered.finishUrl, token, request.id)).catch((error: unknown) => {
        app.metrics.finish('failed')
        throw error
      })
      app.metrics.finish('finished')
      span.setAttributes({ [ATTR.outcome]: result.status, [ATTR.files]: result.files.length })
      await app.live.announceFinished(signedIn, result.files)
      return result
    })
  })
}

export default routes
