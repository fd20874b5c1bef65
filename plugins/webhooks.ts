// The media service's webhooks, received (routes/webhooks.ts) and followed up: the intake
// (src/webhooks/webhook-intake.ts) decides at once and queues the follow-up for good before the
// webhook is answered (in this process, or in a Redis stream every instance works:
// src/webhooks/*-follow-up-queue.ts); the follow-up (webhook-hints.ts) runs after the answer, a
// few at a time per instance, and announces on the event bus what the service says of the file.
import fp from 'fastify-plugin'
import { createWebhookIntake, type IntakeResult } from '../src/webhooks/webhook-intake.js'
import { followHint } from '../src/webhooks/webhook-hints.js'
import type { FollowUp, FollowUpQueue, FollowUpQueueEvents, FollowUpResult } from '../src/webhooks/follow-up-queue.js'
import { createMemoryFollowUpQueue } from '../src/webhooks/memory-follow-up-queue.js'
import { createRedisFollowUpQueue } from '../src/webhooks/redis-follow-up-queue.js'
import { withAccessToken } from '../src/grants/with-access-token.js'
import { BOOKKEEPING_CEILING } from '../src/store/redis-memory.js'

declare module 'fastify' {
  interface FastifyInstance {
    webhooks: {
      /** The tenants whose webhooks are received (WEBHOOK_KEYS). */
      tenants: ReadonlySet<string>
      /** Verifies the webhook and, when it is a first delivery, queues its follow-up for good. */
      receive: (tenant: string, body: unknown) => Promise<IntakeResult>
      /** Resolves once no follow-up waits or runs (on any instance): for tests. */
      idle: () => Promise<void>
    }
  }
}

/** Follow-ups waiting at most, per deployment: beyond, webhooks are refused (503) and the service retries them. */
const MAX_WAITING = 10_000
/** How long a stopping instance lets its follow-ups under way finish. */
const STOP_GRACE_MS = 10_000

export default fp(async (app) => {
  const { keys } = app.config.webhooks
  const { stores } = app
  const intake = createWebhookIntake(stores.webhooks)
  const events: FollowUpQueueEvents = {
    onGivenUp: (job) => {
      app.metrics.webhookFollowUp('given_up')
      app.log.warn({ webhookId: job.id, event: job.event }, 'a webhook follow-up was given up: it kept failing, or the instance stopped')
    },
    onTakenOver: (count) => { app.metrics.webhookTakeovers(count) }
  }
  const queue: FollowUpQueue = stores.redis === undefined
    ? createMemoryFollowUpQueue({ maxWaiting: Math.min(MAX_WAITING, app.config.memoryMaxSessions), ...events })
    : createRedisFollowUpQueue({
      client: stores.redis,
      key: `${app.config.redisKeyPrefix}webhook-follow-ups`,
      maxWaiting: MAX_WAITING,
      mayGrow: async () => ((await stores.fullness()) ?? 0) < BOOKKEEPING_CEILING,
      takeoverAfterMs: app.config.webhooks.takeoverAfterMs,
      ...events
    })
  const parts = {
    uploadedFiles: app.uploadedFiles,
    personSessions: app.personSessions,
    readFile: async (tenant: string, grantId: string, fileId: number) => {
      const apiUrl = app.config.tenants.get(tenant)?.apiUrl
      if (apiUrl === undefined) throw new Error(`no tenant ${tenant}`)
      return await withAccessToken(app.tokens, grantId, async (token) => await app.media.getFile(apiUrl, token, fileId))
    },
    publish: app.eventBus.publish
  }
  const follow = async (job: FollowUp): Promise<FollowUpResult> => {
    app.log.debug({ webhookId: job.id, event: job.event }, 'following a webhook up')
    try {
      const outcome = await followHint(parts, job)
      app.metrics.webhookFollowUp(outcome)
      app.log.debug({ webhookId: job.id, event: job.event, outcome }, 'webhook followed up')
      return 'done'
    } catch (error) {
      app.metrics.webhookFollowUp('failed')
      app.log.warn({ err: error, webhookId: job.id, event: job.event }, 'a webhook could not be followed up now; it is tried again')
      return 'retry'
    }
  }

  app.decorate('webhooks', {
    tenants: new Set(keys.keys()),
    receive: async (tenant: string, body: unknown) => await intake.receive(tenant, keys.get(tenant) ?? [], body, async (hint) =>
      await queue.add({ tenant, id: hint.id, event: hint.event, fileId: hint.fileId, acceptedAt: Date.now() })),
    idle: async () => {
      // A store that cannot be asked (Redis reconnecting) is asked again.
      while ((await queue.stats().catch(() => ({ waiting: 1 }))).waiting > 0) await new Promise((resolve) => setTimeout(resolve, 25))
    }
  })
  app.metrics.gauge('media_bff_webhook_follow_ups_waiting', 'Accepted webhooks whose follow-up waits or runs (on Redis: in the deployment\'s stream)', async () => (await queue.stats().catch(() => undefined))?.waiting)
  app.metrics.gauge('media_bff_webhook_follow_up_oldest_seconds', 'Age of the oldest follow-up still waiting or running', async () => {
    const age = (await queue.stats().catch(() => undefined))?.oldestAgeMs
    return age === undefined ? 0 : age / 1000
  })
  if (keys.size > 0) app.addHook('onReady', async () => { queue.start(follow) })
  // New webhooks are refused from now on (plugins/closing.ts); follow-ups under way finish. In
  // memory those still waiting run too, as long as the grace allows; on Redis they wait in the
  // stream for the other instances.
  app.addHook('preClose', async () => {
    const left = await queue.stop(STOP_GRACE_MS)
    if (left > 0) app.log.warn({ left }, stores.redis === undefined ? 'closing: webhook follow-ups not done are lost with this process' : 'closing: webhook follow-ups under way are left to the other instances')
  })
}, { name: 'webhooks', dependencies: ['config', 'stores', 'media', 'grants', 'metrics'] })
