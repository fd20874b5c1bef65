// The live channels of this instance (GET /events, routes/events.ts): src/events/stream-hub.ts,
// fed by the event bus, so a message raised on any instance reaches the pages open here. When
// the instance closes, its channels end first (Fastify would otherwise wait for them for ever)
// and their pages reconnect, through the proxy, to another instance.
import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { createStreamHub } from '../src/events/stream-hub.js'
import { AppError, loginRequired } from '../src/errors.js'
import type { SignedIn } from '../src/sessions/signed-in.js'
import { MAX_FILES_PER_MESSAGE, newMessageId } from '../src/events/live-message.js'
import type { MediaFileView } from '../src/media/read-media-file.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Turns this signed-in request into its session's live channel: the answer starts and stays open. */
    openEventStream: (request: FastifyRequest, reply: FastifyReply, lastEventId: string | undefined) => Promise<void>
    /**
     * Remembers that this session finished these files on `tenant` (their webhooks are followed
     * for its person) and tells the open pages of its person (of this session alone when its user
     * id is unknown), in one message, what the service said of each at finish: they show them at
     * once. A file whose pages heard of it as it is now (a finish sent twice) is not told again.
     * Resolves once the files are remembered; the telling does not wait for the bus. Never fails:
     * the upload is done either way.
     */
    announceFinished: (signedIn: SignedIn, files: readonly MediaFileView[]) => Promise<void>
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
/** Files remembered per finish, for their webhooks; the rest get no live updates. */
const MAX_REMEMBERED_FILES = 1_000

export default fp(async (app) => {
  const { events } = app.config
  const hub = createStreamHub({
    maxStreams: events.maxStreams,
    maxPerSession: MAX_PER_SESSION,
    maxPerPerson: events.maxPerPerson,
    maxQueuedBytes: MAX_QUEUED_BYTES,
    heartbeatMs: events.heartbeatMs,
    replayWindowMs: REPLAY_WINDOW_MS,
    replayMax: REPLAY_MAX,
    retryMs: RETRY_MS,
    onDelivered: () => { app.metrics.eventDelivered() },
    onDropped: (reason) => { app.metrics.streamDropped(reason) },
    onCount: (count) => { app.metrics.openStreams(count) }
  })
  const stopListening = app.eventBus.subscribe((message) => { hub.deliver(message) })
  app.metrics.gauge('media_bff_event_replay_messages', 'Live messages kept on this instance for pages that reconnect (at most 2,000, for 2 minutes)', () => hub.replayable)
  app.addHook('preClose', async () => {
    stopListening()
    hub.closeAll()
  })

  const tell = async ({ person, handle }: SignedIn, files: readonly MediaFileView[]): Promise<void> => {
    const handles = person === undefined ? [handle] : (await app.personSessions.list(person)).map((live) => live.handle)
    if (!handles.includes(handle)) handles.push(handle)
    await app.eventBus.publish({ id: newMessageId(), event: 'file', handles, data: { event: 'finished', files: files.slice(0, MAX_FILES_PER_MESSAGE) } })
  }

  app.decorate('announceFinished', async (signedIn: SignedIn, files: readonly MediaFileView[]) => {
    if (files.length === 0) return
    const { handle, sid, grantId, tenant, person } = signedIn
    const owner = { handle, sid, grantId, ...(person === undefined ? {} : { userId: person.userId }) }
    let untold = files
    try {
      const told = await Promise.all(files.slice(0, MAX_REMEMBERED_FILES).map(async (file) => {
        const fileId = Number(file.file_id)
        return !(Number.isSafeInteger(fileId) && fileId >= 0) || await app.uploadedFiles.claimShowing(tenant, fileId, file, owner)
      }))
      untold = files.filter((_file, i) => told[i] ?? true)
    } catch (error) {
      app.log.warn({ err: error, files: files.length }, 'finished files could not be remembered: their pages hear of them now, but not when they are ready')
    }
    if (untold.length === 0) return
    tell(signedIn, untold).catch((error: unknown) => {
      app.log.warn({ err: error }, 'finished files could not be announced to their person\'s open pages')
    })
  })

  app.decorate('openEventStream', async (request: FastifyRequest, reply: FastifyReply, lastEventId: string | undefined) => {
    const { signedIn } = request
    if (signedIn === undefined) throw loginRequired()
    if (!hub.hasRoom()) {
      app.metrics.streamDropped('instance_full')
      throw new AppError('unavailable', 'This instance holds all the live channels it may; the page will try again.', { retryAfter: FULL_RETRY_AFTER_S })
    }
    const { sid, handle, budgetKey, endsAt } = signedIn
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
    hub.open(reply.raw, { handle, person: budgetKey, endsAt, stillLive: async () => await app.personSessions.liveUntil(sid) }, lastEventId)
  })
}, { name: 'live-events', dependencies: ['config', 'stores', 'metrics'] })
