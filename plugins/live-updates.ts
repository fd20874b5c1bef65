// Live updates (docs/reference/http-api.md, "Live updates"), behind one decorator, `live`: the
// event bus between instances (Redis pub/sub, or this process), this instance's live channels
// (GET /events: src/events/stream-hub.ts), what a finish and a session's end tell the pages, and
// the media service's webhooks: verified and queued for good before they are answered (in memory,
// or a Redis stream every instance works), then followed up a few at a time (webhook-hints.ts).
// When the instance closes, its channels end first (their pages reconnect to another instance), and
// the follow-ups under way finish.
import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { createMemoryEventBus, createRedisEventBus } from '../src/events/event-bus.js'
import { createStreamHub } from '../src/events/stream-hub.js'
import { newMessageId, type SessionEndReason } from '../src/events/live-message.js'
import { announceFinished } from '../src/events/finish-announcement.js'
import { AppError, loginRequired } from '../src/errors.js'
import type { SignedIn } from '../src/sessions/signed-in.js'
import type { Person } from '../src/sessions/session-index.js'
import type { MediaFileView } from '../src/media/read-media-file.js'
import { createWebhookIntake, type IntakeResult } from '../src/webhooks/webhook-intake.js'
import { followHint } from '../src/webhooks/webhook-hints.js'
import type { FollowUp, FollowUpQueue, FollowUpQueueEvents, FollowUpResult } from '../src/webhooks/follow-up-queue.js'
import { createMemoryFollowUpQueue } from '../src/webhooks/memory-follow-up-queue.js'
import { createRedisFollowUpQueue } from '../src/webhooks/redis-follow-up-queue.js'
import { withAccessToken } from '../src/grants/with-access-token.js'
import { CEILINGS } from '../src/store/redis-memory.js'
import { currentTraceparent } from '../src/tracing/spans.js'

export interface LiveUpdates {
  /** Turns this signed-in request into its session's live channel: the answer starts and stays open. */
  openChannel: (request: FastifyRequest, reply: FastifyReply, lastEventId: string | undefined) => Promise<void>
  /**
   * Remembers the files this session finished (their webhooks are followed for its person) and
   * tells its person's open pages, in one message, what the service said of each
   * (src/events/finish-announcement.ts). Resolves once they are remembered; the telling does not
   * wait for the bus. Never fails: the upload is done either way.
   */
  announceFinished: (signedIn: SignedIn, files: readonly MediaFileView[]) => Promise<void>
  /** Tells every instance that these sessions ended: their open pages are closed and told why. */
  announceSessionsEnded: (handles: readonly string[], reason: SessionEndReason) => void
  webhooks: {
    /** The tenants whose webhooks are received (WEBHOOK_KEYS). */
    tenants: ReadonlySet<string>
    /**
     * Verifies the webhook and, when it is a first delivery, queues its follow-up for good, to go
     * on with the webhook's request id (`requestId`) and trace.
     */
    receive: (tenant: string, body: unknown, requestId: string) => Promise<IntakeResult>
    /** Resolves once no follow-up waits or runs (on any instance): for tests. */
    idle: () => Promise<void>
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    live: LiveUpdates
  }
}

/** One channel per tab; beyond this many tabs of one session, the oldest channel goes. */
const MAX_PER_SESSION = 8
/** A reader this far behind is not reading: it is dropped, and reconnects if it is alive. */
const MAX_QUEUED_BYTES = 64 * 1024
/** A page back within this long (a reconnect, a proxy's restart) misses nothing. */
const REPLAY_WINDOW_MS = 2 * 60_000
const REPLAY_MAX = 2_000
/** How long a browser waits before reconnecting. */
const RETRY_MS = 2_000
const FULL_RETRY_AFTER_S = 5
/** Follow-ups waiting at most, per deployment: beyond, webhooks are refused (503) and the service retries them. */
const MAX_WAITING = 10_000
/** How long a stopping instance lets its follow-ups under way finish. */
const STOP_GRACE_MS = 10_000

export default fp(async (app) => {
  const { config, stores } = app
  const bus = stores.redis === undefined ? createMemoryEventBus() : createRedisEventBus(stores.redis, `${config.redisKeyPrefix}live-events`)
  const hub = createStreamHub({
    maxStreams: config.events.maxStreams,
    maxPerSession: MAX_PER_SESSION,
    maxPerPerson: config.events.maxPerPerson,
    maxQueuedBytes: MAX_QUEUED_BYTES,
    heartbeatMs: config.events.heartbeatMs,
    replayWindowMs: REPLAY_WINDOW_MS,
    replayMax: REPLAY_MAX,
    retryMs: RETRY_MS,
    onDelivered: () => { app.metrics.eventDelivered() },
    onDropped: (reason) => { app.metrics.streamDropped(reason) },
    onCount: (count) => { app.metrics.openStreams(count) },
    now: app.clock
  })
  const stopListening = bus.subscribe((message) => { hub.deliver(message) })
  // Beside media_bff_event_streams, so how full the instance is reads without its configuration.
  app.metrics.gauge('media_bff_event_streams_max', 'Live channels this instance keeps open at most (EVENTS_MAX_STREAMS); beyond, a new one is refused (instance_full)', () => config.events.maxStreams)
  app.metrics.gauge('media_bff_event_replay_messages', 'Live messages kept on this instance for pages that reconnect (at most 2,000, for 2 minutes)', () => hub.replayable)

  const { keys } = config.webhooks
  const intake = createWebhookIntake(stores.webhooks)
  const queueEvents: FollowUpQueueEvents = {
    onGivenUp: (job) => {
      app.metrics.webhookFollowUp('given_up')
      app.log.warn({ webhookId: job.id, event: job.event }, 'a webhook follow-up was given up: it kept failing, or the instance stopped')
    },
    onTakenOver: (count) => { app.metrics.webhookTakeovers(count) }
  }
  const queue: FollowUpQueue = stores.redis === undefined
    ? createMemoryFollowUpQueue({ maxWaiting: Math.min(MAX_WAITING, config.memoryMaxSessions), ...queueEvents })
    : createRedisFollowUpQueue({
      client: stores.redis,
      key: `${config.redisKeyPrefix}webhook-follow-ups`,
      maxWaiting: MAX_WAITING,
      ceiling: CEILINGS.webhooks,
      takeoverAfterMs: config.webhooks.takeoverAfterMs,
      ...queueEvents
    })
  const followUpParts = {
    uploadedFiles: app.uploadedFiles,
    // The session plugin comes after this one (it announces endings here): asked when used.
    personSessions: { list: async (person: Person) => await app.sessions.of(person), liveUntil: async (sid: string) => await app.sessions.liveUntil(sid) },
    readFile: async (tenant: string, grantId: string, fileId: number, requestId: string | undefined) => {
      const apiUrl = config.tenants.get(tenant)?.apiUrl
      if (apiUrl === undefined) throw new Error(`no tenant ${tenant}`)
      return await withAccessToken(app.tokens, grantId, async (token) => await app.media.getFile(apiUrl, token, fileId, requestId), undefined, requestId)
    },
    publish: bus.publish
  }
  const follow = async (job: FollowUp): Promise<FollowUpResult> => {
    app.log.debug({ webhookId: job.id, event: job.event }, 'following a webhook up')
    try {
      const outcome = await followHint(followUpParts, job)
      app.metrics.webhookFollowUp(outcome)
      app.log.debug({ webhookId: job.id, event: job.event, outcome }, 'webhook followed up')
      return 'done'
    } catch (error) {
      app.metrics.webhookFollowUp('failed')
      app.log.warn({ err: error, webhookId: job.id, event: job.event }, 'a webhook could not be followed up now; it is tried again')
      return 'retry'
    }
  }
  app.metrics.gauge('media_bff_webhook_follow_ups_waiting', 'Accepted webhooks whose follow-up waits or runs (on Redis: in the deployment\'s stream)', async () => (await queue.stats().catch(() => undefined))?.waiting)
  app.metrics.gauge('media_bff_webhook_follow_up_oldest_seconds', 'Age of the oldest follow-up still waiting or running', async () => {
    const age = (await queue.stats().catch(() => undefined))?.oldestAgeMs
    return age === undefined ? 0 : age / 1000
  })

  app.decorate<LiveUpdates>('live', {
    openChannel: async (request, reply, lastEventId) => {
      const { signedIn } = request
      if (signedIn === undefined) throw loginRequired(app.config.basePath)
      const { sid, handle, budgetKey, endsAt } = signedIn
      // A hijacked answer skips @fastify/session's save as it goes out: what this request changed
      // (a sign-in from before sessions had handles is given one as it arrives) is saved here, so
      // the channel is named by the handle the session keeps.
      if (request.session.isModified()) await request.session.save()
      // Asked after every wait: from here to the channel's opening nothing else runs, so no other
      // channel can take the last place in between.
      if (!hub.hasRoom()) {
        app.metrics.streamDropped('instance_full')
        throw new AppError('unavailable', 'This instance holds all the live channels it may; the page will try again.', { retryAfter: FULL_RETRY_AFTER_S })
      }
      reply.hijack()
      // Headers the hooks set so far (CORS for an allowed origin, security headers) go out too.
      const earlier = Object.fromEntries(Object.entries(reply.getHeaders()).filter((entry): entry is [string, string | number | string[]] => entry[1] !== undefined))
      reply.raw.writeHead(200, {
        ...earlier,
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        // nginx (and proxies that honour it) pass each event on as it comes, not in buffered chunks.
        'x-accel-buffering': 'no'
      })
      reply.raw.socket?.setNoDelay(true)
      // A device-bound session's channel lasts no longer than the short-lived cookie it opened with.
      const { deviceBinding } = app
      const credentialEndsAt = signedIn.binding === undefined || deviceBinding === undefined ? undefined : deviceBinding.expiresAt(request.cookies[deviceBinding.cookieName])
      hub.open(reply.raw, { handle, person: budgetKey, endsAt, stillLive: async () => await app.sessions.liveUntil(sid), ...(credentialEndsAt === undefined ? {} : { credentialEndsAt }) }, lastEventId)
      // The answer outlives its request by hours, and Fastify keeps the request until the answer
      // ends: let go of what the channel does not use (the session's copy, the grant's access).
      request.session = null as unknown as typeof request.session
      request.signedIn = undefined
      request.access = undefined
    },
    announceFinished: async (signedIn, files) => {
      if (files.length === 0) return
      const { told, remembered } = await announceFinished({
        uploadedFiles: app.uploadedFiles,
        handlesOf: async (person) => (await app.sessions.of(person)).map((live) => live.handle),
        publish: bus.publish
      }, signedIn, files)
      if (!remembered) app.log.warn({ files: files.length }, 'finished files could not be remembered: their pages hear of them now, but not when they are ready')
      told.catch((error: unknown) => { app.log.warn({ err: error }, 'finished files could not be announced to their person\'s open pages') })
    },
    // A page that misses this (Redis away) learns it on its next call or when it is looked at again.
    announceSessionsEnded: (handles, reason) => {
      if (handles.length === 0) return
      bus.publish({ id: newMessageId(), event: 'session', handles: [...handles], data: { ended: true, reason } }).catch(() => {})
    },
    webhooks: {
      tenants: new Set(keys.keys()),
      receive: async (tenant, body, requestId) => await intake.receive(tenant, keys.get(tenant) ?? [], body, async (hint) => {
        // The intake's span, when tracing is on: the follow-up goes on in its trace.
        const traceparent = currentTraceparent()
        return await queue.add({ tenant, id: hint.id, event: hint.event, fileId: hint.fileId, acceptedAt: Date.now(), requestId, ...(traceparent === undefined ? {} : { traceparent }) })
      }),
      idle: async () => {
        // A store that cannot be asked (Redis reconnecting) is asked again.
        while ((await queue.stats().catch(() => ({ waiting: 1 }))).waiting > 0) await new Promise((resolve) => setTimeout(resolve, 25))
      }
    }
  })

  if (keys.size > 0) app.addHook('onReady', async () => { queue.start(follow) })
  app.addHook('preClose', async () => {
    stopListening()
    hub.closeAll()
    // New webhooks are refused from now on (plugins/gate.ts); follow-ups under way finish. In
    // memory those still waiting run too, as long as the grace allows; on Redis they wait in the
    // stream for the other instances.
    const left = await queue.stop(STOP_GRACE_MS)
    if (left > 0) app.log.warn({ left }, stores.redis === undefined ? 'closing: webhook follow-ups not done are lost with this process' : 'closing: webhook follow-ups under way are left to the other instances')
  })
  app.addHook('onClose', async () => { await bus.close() })
}, { name: 'live-updates', dependencies: ['config', 'stores', 'media', 'tokens', 'metrics'] })
