// 7. Redis commands per request with the Redis store, seen through MONITOR while a fixed number of
// POST /uploads/register, relayed GET /api/folders/0/contents, GET /auth/session and whole
// sign-ins run, divided by the successful requests. Each command media-bff sends itself counts as one round trip of its request: the
// commands of one request depend on each other (the grant id is in the session) and go one after
// another, while ioredis auto-pipelining (enableAutoPipelining in src/store/redis-client.ts)
// batches commands of different requests issued in the same tick into one write, which MONITOR
// cannot show. Commands a Lua script runs inside Redis (MONITOR's "lua" source) are counted
// apart: they cost Redis work but no trip.
import { request } from 'undici'
import type { BffStack } from '../lib/stack.js'
import type { BenchRedis } from '../lib/redis.js'
import { runLoad, type LoadOptions } from '../lib/load.js'
import { signedInCookie, signInMany } from '../lib/sign-in.js'
import { bffFolderContents, bffRegister, sessionState } from '../lib/targets.js'

export interface RedisTripsRow {
  call: string
  requests: number
  /** Commands media-bff sent per successful request: its round trips. */
  trips: number
  /** Commands run inside scripts per successful request. */
  inScripts: number
  /** Per successful request, by command (lower case; "(lua)" for those run in scripts), largest first. */
  perRequest: Array<{ command: string, calls: number }>
}

/** Connections of the counted runs (and their warm-ups). */
export const CONNECTIONS = 10

async function countCommands (redis: BenchRedis, call: string, target: LoadOptions, requests: number): Promise<RedisTripsRow> {
  return await countWhile(redis, call, async () => {
    const result = await runLoad({ ...target, connections: CONNECTIONS, amount: requests })
    if (result.failed > 0) throw new Error(`${call}: ${result.failed} of ${requests} requests failed while counting Redis commands`)
    return result.ok
  })
}

/** The commands media-bff sends to Redis while `work` runs, per request it says it made. */
async function countWhile (redis: BenchRedis, call: string, work: () => Promise<number>): Promise<RedisTripsRow> {
  const monitor = await redis.client.monitor()
  const marker = `bench-trips-${call}`
  const counts = new Map<string, number>()
  let trips = 0
  let inScripts = 0
  let seenMarker: () => void = () => {}
  const ended = new Promise<void>((resolve) => { seenMarker = resolve })
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    const command = (args[0] ?? '').toLowerCase()
    if (command === 'echo' && args[1] === marker) {
      seenMarker()
      return
    }
    const lua = source === 'lua'
    if (lua) inScripts++
    else trips++
    const key = lua ? `${command} (lua)` : command
    counts.set(key, (counts.get(key) ?? 0) + 1)
  })
  try {
    const done = await work()
    // MONITOR reports asynchronously: everything before the marker has been seen once it is.
    await redis.client.echo(marker)
    await ended
    const per = (n: number): number => n / Math.max(1, done)
    return {
      call,
      requests: done,
      trips: per(trips),
      inScripts: per(inScripts),
      perRequest: [...counts].map(([command, calls]) => ({ command, calls: per(calls) })).sort((a, b) => b.calls - a.calls)
    }
  } finally {
    monitor.disconnect()
  }
}

/** `stack` must run on `redis` (REDIS_URL); nothing else may use that Redis meanwhile. */
export async function redisTripsScenario (stack: BffStack, redis: BenchRedis, requests: number): Promise<RedisTripsRow[]> {
  await stack.restartEmulator()
  const cookie = await signedInCookie(stack.bff.url)
  const register = bffRegister(stack.bff.url, cookie)
  const relay = bffFolderContents(stack.bff.url, cookie)
  // Warm-up: the grant and session are read once at least, memos and pools filled.
  await runLoad({ ...register, connections: CONNECTIONS, amount: 50 })
  const rows = [await countCommands(redis, 'POST /uploads/register', register, requests)]
  const relayed = await request(relay.url, { headers: relay.headers })
  await relayed.body.dump()
  if (relayed.statusCode !== 200) throw new Error(`media-bff answered the relayed GET /api/folders/0/contents with ${relayed.statusCode}`)
  await runLoad({ ...relay, connections: CONNECTIONS, amount: 50 })
  rows.push(await countCommands(redis, 'GET /api/folders/0/contents (relayed)', relay, requests))
  const session = sessionState(stack.bff.url, cookie)
  await runLoad({ ...session, connections: CONNECTIONS, amount: 50 })
  rows.push(await countCommands(redis, 'GET /auth/session', session, requests))
  rows.push(await countSignIns(redis, stack.bff.url, Math.max(20, Math.round(requests / 20))))
  return rows
}

/**
 * A whole sign-in (GET /auth/login, the emulator's consent, GET /auth/callback) as one request:
 * the emulator uses no Redis, so every command is media-bff's, for the sign-in.
 */
async function countSignIns (redis: BenchRedis, bffUrl: string, count: number): Promise<RedisTripsRow> {
  await signInMany(bffUrl, 5, 1)
  return await countWhile(redis, 'sign-in (login and callback)', async () => {
    await signInMany(bffUrl, count, 4)
    return count
  })
}
