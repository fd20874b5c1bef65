// The follow-up queue in a Redis stream (`{REDIS_KEY_PREFIX}webhook-follow-ups`) worked by every
// instance through one consumer group: an accepted webhook is in the stream (XADD, AOF-backed)
// before it is answered, each instance reads new entries (XREADGROUP, on a connection of its own
// since it blocks), and an entry is acknowledged and deleted (XACK, XDEL) only once its follow-up
// is done. An entry an instance took and never finished (it was killed, or the follow-up failed
// for now) stays pending; once it has been idle for takeoverAfterMs any instance claims it
// (XAUTOCLAIM) and does it again. While a follow-up runs, its instance claims it afresh every
// third of that time, so a slow one is not taken over while it is still under way. Each instance
// reads as a consumer of its own name; the consumers of instances long gone (nothing pending,
// silent for forgetConsumersAfterMs) are removed from the group, so restarts do not pile them up.
// Everything is one key, so it works on a Cluster (one hash slot) and every script touches that
// key alone.
import { hostname } from 'node:os'
import { randomBytes } from 'node:crypto'
import type { Cluster, Redis } from 'ioredis'
import { StoreUnavailableError } from '../store/key-value-store.js'
import { FULL_AT } from '../store/redis-scripts.js'
import { FOLLOW_UP_CONCURRENCY, FOLLOW_UP_MAX_AGE_MS, readFollowUp, type FollowUp, type FollowUpQueue, type FollowUpQueueEvents, type FollowUpResult } from './follow-up-queue.js'

export interface RedisFollowUpQueueOptions extends FollowUpQueueEvents {
  client: Redis | Cluster
  key: string
  maxWaiting: number
  /**
   * Share of maxmemory beyond which no follow-up is queued (src/store/redis-memory.ts), checked
   * by the node that holds the stream in the same script as the XADD.
   */
  ceiling?: number
  concurrency?: number
  /** How long a taken follow-up may go unclaimed before another instance takes it over. */
  takeoverAfterMs?: number
  /** How long one read waits for new entries. */
  blockMs?: number
  /**
   * How long another instance's consumer may stay silent, with nothing pending, before it is
   * removed from the group (its instance is gone; one that reads again is back at once).
   * Default: ten times takeoverAfterMs, at least ten minutes.
   */
  forgetConsumersAfterMs?: number
  now?: () => number
}

const GROUP = 'media-bff'

const scripts = {
  // ARGV: most entries, the follow-up, the ceiling (1: none). Nil when the stream holds that many
  // already or the node has used that share of its maxmemory (src/store/redis-scripts.ts).
  followUpAdd: `${FULL_AT}
    if redis.call('XLEN', KEYS[1]) >= tonumber(ARGV[1]) then return false end
    if full_at(ARGV[3]) then return false end
    return redis.call('XADD', KEYS[1], '*', 'job', ARGV[2])`,
  // ARGV: group, entry id.
  followUpDone: `
    redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
    return redis.call('XDEL', KEYS[1], ARGV[2])`
} as const

interface ScriptCommands {
  followUpAdd: (key: string, max: number, job: string, ceiling: number) => Promise<string | null>
  followUpDone: (key: string, group: string, id: string) => Promise<number>
}

type StreamEntry = [id: string, fields: string[]]

export function createRedisFollowUpQueue (options: RedisFollowUpQueueOptions): FollowUpQueue {
  const { client, key, maxWaiting, concurrency = FOLLOW_UP_CONCURRENCY, takeoverAfterMs = 20_000, blockMs = 2_000, now = Date.now } = options
  const forgetConsumersAfterMs = options.forgetConsumersAfterMs ?? Math.max(10 * 60_000, 10 * takeoverAfterMs)
  for (const [name, lua] of Object.entries(scripts)) client.defineCommand(name, { lua, numberOfKeys: 1 })
  const commands = client as unknown as ScriptCommands
  const consumer = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`
  const inFlight = new Set<string>()
  const state = { running: false }
  let reader: Redis | Cluster | undefined
  let work: ((job: FollowUp) => Promise<FollowUpResult>) | undefined
  let groupReady: Promise<void> | undefined
  const timers: NodeJS.Timeout[] = []
  let freed: (() => void) | undefined

  const ensureGroup = async (): Promise<void> => {
    groupReady ??= client.xgroup('CREATE', key, GROUP, '0', 'MKSTREAM').then(() => {}, (error: Error) => {
      if (!error.message.startsWith('BUSYGROUP')) {
        groupReady = undefined
        throw error
      }
    })
    await groupReady
  }

  const take = (entries: StreamEntry[]): void => {
    for (const [id, fields] of entries) {
      if (inFlight.has(id)) continue
      inFlight.add(id)
      runOne(id, fields).catch(() => {}).finally(() => {
        inFlight.delete(id)
        freed?.()
      })
    }
  }

  const runOne = async (id: string, fields: string[]): Promise<void> => {
    const job = readFollowUp(fieldOf(fields, 'job') ?? '')
    if (job === undefined) {
      await commands.followUpDone(key, GROUP, id)
      return
    }
    const result = work === undefined ? 'retry' : await work(job).catch((): FollowUpResult => 'retry')
    if (result === 'done') {
      await commands.followUpDone(key, GROUP, id)
    } else if (now() - job.acceptedAt >= FOLLOW_UP_MAX_AGE_MS) {
      options.onGivenUp?.(job)
      await commands.followUpDone(key, GROUP, id)
    }
    // Otherwise it stays pending, and is taken again once it has been idle for takeoverAfterMs.
  }

  const readLoop = async (): Promise<void> => {
    let failures = 0
    while (state.running) {
      const free = concurrency - inFlight.size
      if (free <= 0) {
        await new Promise<void>((resolve) => { freed = resolve })
        freed = undefined
        continue
      }
      try {
        await ensureGroup()
        const answer = await (reader as Redis).xreadgroup('GROUP', GROUP, consumer, 'COUNT', free, 'BLOCK', blockMs, 'STREAMS', key, '>') as Array<[string, StreamEntry[]]> | null
        failures = 0
        if (answer !== null) take(answer[0]?.[1] ?? [])
      } catch (error) {
        if (!state.running) return
        // The group is gone (Redis lost its data): made again on the next round.
        if ((error as Error).message.startsWith('NOGROUP')) groupReady = undefined
        failures++
        await new Promise((resolve) => setTimeout(resolve, Math.min(2_000, 100 * 2 ** failures)))
      }
    }
  }

  /** Follow-ups idle too long (their instance died, or they failed for now) are taken over here. */
  const takeOver = async (): Promise<void> => {
    const free = concurrency - inFlight.size
    if (!state.running || free <= 0) return
    const answer = await client.xautoclaim(key, GROUP, consumer, takeoverAfterMs, '0-0', 'COUNT', free) as [string, StreamEntry[], string[]?]
    const claimed = (answer[1] ?? []).filter((entry): entry is StreamEntry => Array.isArray(entry) && Array.isArray(entry[1]))
    if (claimed.length > 0) options.onTakenOver?.(claimed.length)
    take(claimed)
  }

  /**
   * The consumers of instances gone for good: nothing pending (takeOver has claimed what they
   * left), silent for forgetConsumersAfterMs. A consumer that reads again is made anew by Redis.
   */
  const forgetGone = async (): Promise<void> => {
    if (!state.running) return
    const consumers = await client.xinfo('CONSUMERS', key, GROUP) as unknown[][]
    for (const fields of consumers) {
      const info = new Map<unknown, unknown>()
      for (let i = 0; i + 1 < fields.length; i += 2) info.set(fields[i], fields[i + 1])
      const [name, pending, idle] = [info.get('name'), Number(info.get('pending')), Number(info.get('idle'))]
      if (typeof name !== 'string' || name === consumer || pending !== 0 || !(idle >= forgetConsumersAfterMs)) continue
      await client.xgroup('DELCONSUMER', key, GROUP, name)
    }
  }

  /** Follow-ups under way here are claimed afresh, so none is taken over while it still runs. */
  const keepClaimed = async (): Promise<void> => {
    if (inFlight.size === 0) return
    await client.xclaim(key, GROUP, consumer, 0, ...inFlight, 'JUSTID')
  }

  return {
    async add (job) {
      try {
        await ensureGroup()
        return await commands.followUpAdd(key, maxWaiting, JSON.stringify(job), options.ceiling ?? 1) !== null
      } catch (error) {
        throw new StoreUnavailableError(`redis could not queue a webhook follow-up: ${(error as Error).message}`)
      }
    },
    start (worker) {
      work = worker
      state.running = true
      // Blocking reads hold a connection: one of its own, with a deadline longer than the wait.
      reader = client.isCluster
        ? (client as Cluster).duplicate([], { redisOptions: { ...(client as Cluster).options.redisOptions, commandTimeout: blockMs + 5_000 } })
        : (client as Redis).duplicate({ commandTimeout: blockMs + 5_000, enableAutoPipelining: false })
      reader.on('error', () => {})
      readLoop().catch(() => {})
      const every = (ms: number, task: () => Promise<void>): void => {
        const timer = setInterval(() => { task().catch(() => {}) }, ms)
        timer.unref()
        timers.push(timer)
      }
      every(Math.max(250, takeoverAfterMs / 4), takeOver)
      every(Math.max(250, takeoverAfterMs / 3), keepClaimed)
      every(Math.max(250, forgetConsumersAfterMs / 4), forgetGone)
    },
    async stop (graceMs) {
      state.running = false
      for (const timer of timers.splice(0)) clearInterval(timer)
      reader?.disconnect()
      freed?.()
      const deadline = now() + graceMs
      while (inFlight.size > 0 && now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
      return inFlight.size
    },
    async stats () {
      const [length, first] = await Promise.all([
        client.xlen(key),
        client.xrange(key, '-', '+', 'COUNT', 1)
      ])
      const firstId = first[0]?.[0]
      return { waiting: length, oldestAgeMs: firstId === undefined ? undefined : now() - Number(firstId.split('-')[0]) }
    }
  }
}

function fieldOf (fields: string[], name: string): string | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1]
  return undefined
}
