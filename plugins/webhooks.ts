// The media service's webhooks, received (routes/webhooks.ts) and followed up: the intake
// (src/webhooks/webhook-intake.ts) decides at once, the follow-up (webhook-hints.ts) runs after
// the answer, a few at a time, and announces on the event bus what the service says of the file.
import fp from 'fastify-plugin'
import { createWebhookIntake, type IntakeResult } from '../src/webhooks/webhook-intake.js'
import { followHint } from '../src/webhooks/webhook-hints.js'
import { createFollowUpQueue } from '../src/webhooks/follow-up-queue.js'
import type { WebhookHint } from '../src/webhooks/read-webhook.js'
import type { MediaFileView } from '../src/media/read-media-file.js'

declare module 'fastify' {
  interface FastifyInstance {
    webhooks: {
      /** The tenants whose webhooks are received (WEBHOOK_KEYS). */
      tenants: ReadonlySet<string>
      receive: (tenant: string, body: unknown) => Promise<IntakeResult>
      /** Queues the follow-up of an accepted webhook; false when the backlog is full. */
      follow: (tenant: string, hint: WebhookHint) => boolean
      /**
       * Remembers who finished these files, so that webhooks about them are followed (only for
       * tenants whose webhooks are received). Never fails: the upload is done either way.
       */
      rememberFinished: (tenant: string, owner: { handle?: string, sid: string, grantId?: string, userId?: string | undefined }, files: readonly MediaFileView[]) => Promise<void>
      /** Resolves once every queued follow-up is done. */
      idle: () => Promise<void>
    }
  }
}

const CONCURRENCY = 8
const MAX_WAITING = 1_000

export default fp(async (app) => {
  const { keys } = app.config.webhooks
  const intake = createWebhookIntake(app.kv)
  const queue = createFollowUpQueue({ concurrency: CONCURRENCY, maxWaiting: MAX_WAITING })
  const parts = {
    uploadedFiles: app.uploadedFiles,
    personSessions: app.personSessions,
    accessToken: async (grantId: string) => (await app.tokens.accessToken(grantId)).grant.accessToken,
    readFile: async (tenant: string, token: string, fileId: number) => {
      const apiUrl = app.config.tenants.get(tenant)?.apiUrl
      if (apiUrl === undefined) throw new Error(`no tenant ${tenant}`)
      return await app.media.getFile(apiUrl, token, fileId)
    },
    publish: app.eventBus.publish
  }

  app.decorate('webhooks', {
    tenants: new Set(keys.keys()),
    receive: async (tenant: string, body: unknown) => await intake.receive(tenant, keys.get(tenant) ?? [], body),
    follow: (tenant: string, hint: WebhookHint) => {
      const queued = queue.push(async () => {
        const outcome = await followHint(parts, tenant, hint).catch((error: unknown) => {
          app.log.warn({ err: error, webhookId: hint.id, event: hint.event }, 'a webhook could not be followed up')
          return 'failed' as const
        })
        app.metrics.webhookFollowUp(outcome)
        app.log.debug({ webhookId: hint.id, event: hint.event, outcome }, 'webhook followed up')
      })
      if (!queued) app.metrics.webhookFollowUp('backlog_full')
      return queued
    },
    rememberFinished: async (tenant, { handle, sid, grantId, userId }, files) => {
      const fileIds = files.map((file) => Number(file.file_id)).filter((id) => Number.isSafeInteger(id) && id >= 0)
      if (!keys.has(tenant) || handle === undefined || grantId === undefined || fileIds.length === 0) return
      await app.uploadedFiles.remember(tenant, { handle, sid, grantId, ...(userId === undefined ? {} : { userId }) }, fileIds).catch((error: unknown) => {
        app.log.warn({ err: error, files: fileIds.length }, 'finished files could not be remembered for their webhooks; they get no live updates')
      })
    },
    idle: queue.idle
  })
  // Follow-ups under way finish (each within the upstream deadline); those still waiting are let go.
  app.addHook('preClose', async () => {
    const dropped = queue.clear()
    if (dropped > 0) app.log.warn({ dropped }, 'closing: webhook follow-ups not started were let go')
    await queue.idle()
  })
}, { name: 'webhooks', dependencies: ['config', 'stores', 'media', 'grants', 'metrics'] })
