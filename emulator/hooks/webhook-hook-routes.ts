// The test hooks of outbound webhooks, under /__emulator/webhooks: the accounts' endpoints (an
// operator's settings on the real service), every delivery attempt made, and a delivery sent
// now with any of its parts forged, for tests of a receiver's checks.
import type { FastifyInstance } from 'fastify'
import { userNames, type EmulatorContext } from '../context.js'
import { fieldsOf } from '../http/body-parsers.js'
import { sendJson } from '../http/replies.js'
import { parseWebhookEndpoint } from '../webhooks/webhook-endpoints.js'
import { parseWebhookSend } from '../webhooks/webhook-send-request.js'

const prefix = '/__emulator/webhooks'

/** Registered in a scope that reads bodies as fields (http/body-parsers.ts, acceptFields). */
export function webhookHookRoutes (app: FastifyInstance, context: EmulatorContext): void {
  const { endpoints } = context.webhooks
  app.get(prefix, async (_request, reply) => sendJson(reply, 200, { webhooks: endpoints.list() }))

  app.post(prefix, async (request, reply) => {
    endpoints.add(parseWebhookEndpoint(fieldsOf(request), userNames(context)))
    return sendJson(reply, 200, { webhooks: endpoints.list() })
  })

  app.delete(prefix, async (_request, reply) => {
    endpoints.clear()
    return sendJson(reply, 200, { webhooks: [] })
  })

  app.get(`${prefix}/sent`, async (_request, reply) => sendJson(reply, 200, { attempts: context.webhooks.sent() }))

  app.post(`${prefix}/send`, async (request, reply) => {
    const delivery = parseWebhookSend(fieldsOf(request), userNames(context), endpoints)
    return sendJson(reply, 200, { status: await context.webhooks.send(delivery) })
  })
}
