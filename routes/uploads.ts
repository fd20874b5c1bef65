// Direct upload: register with the media service for the browser, and finish afterwards.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@fastify/type-provider-typebox'
import { AppError } from '../src/errors.js'
import { accessOf } from '../src/grants/access.js'
import { hasUnsafeCharacters, unsafeTextMessage } from '../src/safe-text.js'
import { checkUploadUrl, refuseUploadUrl, registrationFields, UPLOAD_SCOPE } from '../src/uploads/upload-policy.js'
import { ATTR, inSpan } from '../src/tracing/spans.js'
import { header, json, refusals } from './responses.js'
import { FinishResult, UploadRegistration, UploadRegistrationRequest } from '../src/contract/index.js'

const FinishParams = Type.Object({ ulid: Type.String({ pattern: '^[0-9A-Za-z]{1,64}$' }) })

/** What registering and finishing may be refused for: a page's call with the upload scope, what the media service says. */
const guards = { csrf: true, signedIn: true, scopes: true, upstream: 'read', body: true } as const

const routes: FastifyPluginAsyncTypebox = async (app) => {
  const { config } = app

  app.post('/uploads/register', {
    schema: {
      tags: ['uploads'],
      operationId: 'registerUpload',
      summary: 'Register an upload; the browser then posts files to url_upload_direct',
      body: UploadRegistrationRequest,
      response: {
        200: json(UploadRegistration, 'The media service took the registration: the browser posts each file to url_upload_direct, then finishes at finish_url', { 'Cache-Control': header(Type.String({ const: 'no-store' }), true) }),
        ...refusals({
          ...guards,
          validated: ['the body'],
          limit: 'registrations of this person (RATE_LIMIT_REGISTER_PER_MINUTE)',
          own: { 400: ['`invalid_request`: the title holds a control or bidirectional character'] }
        })
      }
    },
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
    schema: {
      tags: ['uploads'],
      operationId: 'finishUpload',
      summary: 'Finish an upload this session registered',
      params: FinishParams,
      response: {
        200: json(FinishResult, 'The upload is finished (or was already): the files it stored, which the person\'s open pages are told of'),
        ...refusals({
          ...guards,
          validated: ['the ulid'],
          limit: 'finishes of this person (RATE_LIMIT_FINISH_PER_MINUTE)',
          own: { 404: ['`not_found`: this session registered no such upload on its tenant, or it has expired'] }
        })
      }
    },
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
