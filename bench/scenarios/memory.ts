// 4. Memory per session. In memory: RSS growth of a media-bff process (its own: it runs in a
// child) per idle signed-in session, each made through the real sign-in. On Redis: MEMORY USAGE
// of the real session and grant keys, plus the server's used_memory growth per sign-in.
import type { BffStack } from '../lib/stack.js'
import type { ChildUsage } from '../lib/child.js'
import type { BenchRedis } from '../lib/redis.js'
import { signInMany } from '../lib/sign-in.js'

export interface IdleMemoryResult {
  sessions: number
  signInSeconds: number
  rssPerSession: number
  heapPerSession: number
}

const SIGN_IN_CONCURRENCY = 32
// The emulator's cost per sign-in grows with the tokens it holds (it prunes them all on every
// issue); emptying it between batches keeps 10 000 sign-ins linear. Sessions already made stay
// in media-bff, idle, which is all this measures.
const BATCH = 1000

async function signInBatches (stack: BffStack, count: number): Promise<number> {
  let seconds = 0
  for (let done = 0; done < count; done += BATCH) {
    if (done > 0) await stack.restartEmulator()
    seconds += await signInMany(stack.bff.url, Math.min(BATCH, count - done), SIGN_IN_CONCURRENCY)
  }
  return seconds
}

/** The stack's media-bff must run with --expose-gc and hold nothing else of note. */
export async function idleMemoryScenario (stack: BffStack, sessions: number): Promise<IdleMemoryResult> {
  // Warm-up: code, pools and the store's map reach their working shape before the baseline.
  await signInMany(stack.bff.url, 200, SIGN_IN_CONCURRENCY)
  const before = await stack.bff.child.call<ChildUsage>('gc')
  const signInSeconds = await signInBatches(stack, sessions)
  const after = await stack.bff.child.call<ChildUsage>('gc')
  return {
    sessions,
    signInSeconds,
    rssPerSession: (after.memory.rss - before.memory.rss) / sessions,
    heapPerSession: (after.memory.heapUsed - before.memory.heapUsed) / sessions
  }
}

export interface RedisMemoryResult {
  sessions: number
  /** Mean MEMORY USAGE of a `sess:` key and of a `grant:` key. */
  sessionKeyBytes: number
  grantKeyBytes: number
  /** Growth of Redis used_memory per sign-in: the keys plus the server's own bookkeeping. */
  usedMemoryPerSignIn: number
  /** Value lengths, to tell the data from Redis's overhead. */
  sessionValueBytes: number
  grantValueBytes: number
}

export async function redisMemoryScenario (stack: BffStack, redis: BenchRedis, prefix: string, sessions: number): Promise<RedisMemoryResult> {
  const usedMemory = async (): Promise<number> => Number(/used_memory:(\d+)/.exec(await redis.client.info('memory'))?.[1])
  const before = await usedMemory()
  await signInBatches(stack, sessions)
  const after = await usedMemory()
  const measure = async (kind: string): Promise<{ usage: number, length: number }> => {
    const keys = await redis.client.keys(`${prefix}${kind}:*`)
    if (keys.length === 0) throw new Error(`no ${prefix}${kind}:* keys in Redis`)
    let usage = 0
    let length = 0
    for (const key of keys) {
      // SAMPLES 0: the exact size, not an estimate.
      usage += Number(await redis.client.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'))
      length += await redis.client.strlen(key)
    }
    return { usage: usage / keys.length, length: length / keys.length }
  }
  const session = await measure('sess')
  const grant = await measure('grant')
  return {
    sessions,
    sessionKeyBytes: session.usage,
    grantKeyBytes: grant.usage,
    usedMemoryPerSignIn: (after - before) / sessions,
    sessionValueBytes: session.length,
    grantValueBytes: grant.length
  }
}
