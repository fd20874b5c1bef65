// POST WEBHOOK_PATH (the default tenant) and WEBHOOK_PATH/:tenant: the media service's webhooks
// (docs/reference/http-api.md, "Live updates"). Server to server: no session and no X-CSRF (the
// service sends neither), a rate limit per sending address, a small body. Registered only when
// WEBHOOK_KEYS names a key. The answer comes as soon as the webhook is verified and its follow-up
// queued for good (plugins/live-updates.ts); a webhook that cannot be queued is refused with 503
// and Retry-After, which the service retries. Every refusal is counted and logged once: in onError,
// which sees those of the handler, the body parser and the rate limit alike.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@fastify/type-provider-typebox'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../src/errors.js'
import { WEBHOOK_EVENTS } from '../src/webhooks/read-webhook.js'
import { json, refusals } from './responses.js'

/** The service's webhooks are a few hundred bytes: this is ample, and bounds what a stranger can send. */
const WEBHOOK_BODY_LIMIT = 64 * 1024

const Received = Type.Object({ status: Type.Union([Type.Literal('accepted'), Type.Literal('duplicate')]) })

/**
 * The body as the service sends it, for the description only: the reader judges it
 * (src/webhooks/read-webhook.ts), after the tenant, so each refusal keeps its answer and outcome.
 */
const WebhookBody = Type.Object({
  signature: Type.Object({
    timestamp: Type.Union([Type.String({ pattern: '^\\d{1,12}$' }), Type.Integer({ minimum: 0 })], { description: 'Unix seconds; refused when more than 5 minutes from media-bff\'s clock' }),
    token: Type.String({ pattern: '^[A-Za-z0-9_-]{16,256}$', description: 'Random, new for each event; refused when seen before with another id' }),
    signature: Type.String({ pattern: '^[0-9a-fA-F]{64}$', description: 'HMAC-SHA256, in hex, of timestamp followed by token, keyed with the endpoint\'s key (WEBHOOK_KEYS)' })
  }, { description: 'What proves the service sent it: it covers the timestamp and token only, not the rest of the body' }),
  id: Type.String({ format: 'uuid', description: 'The same across the service\'s retries of one event' }),
  event: Type.String({ enum: [...WEBHOOK_EVENTS] }),
  api_version: Type.Optional(Type.String({ description: 'A date, YYYY-MM-DD' })),
  data: Type.Optional(Type.Object({
    file_id: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^\\d{1,15}$' })], { description: 'The file to read again from the service' }))
  }, { additionalProperties: true, description: 'Never believed: only a file id is taken from it, to look the file up' }))
})
const TenantParams = Type.Object({ tenant: Type.String({ minLength: 1, maxLength: 64 }) })

/** A refusal, with the outcome the metrics count it under. */
class WebhookRefused extends AppError {
  constructor (readonly outcome: string, code: 'invalid_request' | 'not_found' | 'unavailable', message: string) {
    super(code, message, code === 'unavailable' ? { retryAfter: QUEUE_FULL_RETRY_AFTER_S } : {})
  }
}

/** The service waits its own time between retries; this only says how soon is worth it. */
const QUEUE_FULL_RETRY_AFTER_S = 30

const routes: FastifyPluginAsyncTypebox = async (app) => {
  if (app.live.webhooks.tenants.size === 0) return
  const { path } = app.config.webhooks

  const options = {
    bodyLimit: WEBHOOK_BODY_LIMIT,
    config: { caller: 'server' as const, limit: 'webhooks' as const },
    onError: async (request: FastifyRequest, _reply: FastifyReply, error: FastifyError | AppError) => {
      const outcome = error instanceof WebhookRefused ? error.outcome : refusalOf(error)
      app.metrics.webhook(outcome)
      request.log.warn({ outcome, reason: error.message }, 'a webhook was not taken')
    }
  }
  const schema = {
    tags: ['webhooks'],
    description: 'Server to server: no session and no X-CSRF; the signature is in the body. Registered only when WEBHOOK_KEYS names a key; at WEBHOOK_PATH (/webhooks/media by default). Bodies over 64 KiB are refused (413).',
    unvalidatedBody: WebhookBody,
    response: {
      200: json(Received, '`duplicate`: a delivery of this id was taken already (the service retrying, or the very delivery resent); nothing is done again'),
      202: json(Received, '`accepted`: verified, and its follow-up queued for good (the file is read from the service and the person\'s pages told)'),
      ...refusals({
        body: true,
        bodyLimit: '64 KiB',
        limit: 'webhooks from this address (RATE_LIMIT_WEBHOOKS_PER_MINUTE)',
        own: {
          400: ['`invalid_request`: signed with another key, a timestamp more than 5 minutes from now, a signature\'s token seen before with another id, or not the documented shape'],
          404: ['`not_found`: no webhooks are received for this tenant (WEBHOOK_KEYS names no key of it)'],
          503: ['`unavailable`: its follow-up cannot be queued now (the queue full, Redis away or nearly full); its id is not taken, so the service\'s retry is a first delivery']
        }
      })
    }
  }

  const receive = async (tenant: string, request: FastifyRequest, reply: FastifyReply): Promise<{ status: 'accepted' | 'duplicate' }> => {
    if (!app.live.webhooks.tenants.has(tenant)) throw new WebhookRefused('refused_tenant', 'not_found', 'No webhooks are received for this tenant.')
    const result = await app.live.webhooks.receive(tenant, request.body, request.id)
    if (result.outcome === 'queue_full') throw new WebhookRefused('queue_full', 'unavailable', 'media-bff has too many webhooks to follow up; send it again later.')
    if (result.hint === undefined) throw new WebhookRefused(result.outcome, 'invalid_request', `The webhook was refused: ${result.reason ?? result.outcome}.`)
    app.metrics.webhook(result.outcome)
    if (result.outcome === 'duplicate') return { status: 'duplicate' }
    reply.code(202)
    return { status: 'accepted' }
  }

  app.post(path, {
    ...options,
    schema: { ...schema, operationId: 'receiveWebhook', summary: 'A webhook of the media service, for the default tenant' }
  }, async (request, reply) => await receive(app.config.defaultTenant, request, reply))

  app.post(`${path}/:tenant`, {
    ...options,
    schema: { ...schema, operationId: 'receiveTenantWebhook', summary: 'A webhook of the media service, for the tenant named', params: TenantParams }
  }, async (request, reply) => await receive(request.params.tenant, request, reply))
}

export default routes

/** Refusals made before the handler ran: the rate limit, the body parser. */
function refusalOf (error: FastifyError | AppError): string {
  if (error instanceof AppError && error.code === 'rate_limited') return 'rate_limited'
  if (error instanceof AppError && error.code === 'unavailable') return 'unavailable'
  const status = error instanceof AppError ? error.status : error.statusCode
  if (status === 413) return 'refused_size'
  if (status !== undefined && status >= 500) return 'unavailable'
  return 'refused_body'
}
