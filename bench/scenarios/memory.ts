// 4. Memory per session. In memory: RSS growth of a media-bff process (its own: it runs in a
// child) per idle signed-in session, each made through the real sign-in. On Redis: MEMORY USAGE
// of the real session and grant keys, plus the server's used_memory growth per sign-in.
import type { BffStack } from '../lib/stack.js'
import type { ChildUsage } from '../lib/child.js'
import type { BenchRedis } from '../lib/redis.js'
import { signInMany } from '../lib/sign-in.js'
import { median } from '../lib/stats.js'

export interface IdleMemoryResult {
  sessions: number
  signInSeconds: number
  /** Per session, in steady state: the median growth per batch over the second half of the run. */
  rssPerSession: number
  heapPerSession: number
  /** Plain growth from the baseline to the end, per session (RSS moves when pages go back to the OS). */
  rssOverall: number
  heapOverall: number
}

const SIGN_IN_CONCURRENCY = 32

/**
 * The stack's media-bff must run with --expose-gc. Sessions are signed in in batches with a GC'd
 * reading after each; RSS jumps when V8 commits or returns pages, and bounded caches fill early,
 * so the figure is the median growth per batch over the second half, not one end-to-end delta.
 */
export async function idleMemoryScenario (stack: BffStack, sessions: number): Promise<IdleMemoryResult> {
  const batch = sessions >= 5000 ? 1000 : Math.max(50, Math.round(sessions / 5))
  // Warm-up: code, pools and the store's map reach their working shape before the baseline.
  await signInMany(stack.bff.url, 200, SIGN_IN_CONCURRENCY)
  const readings: ChildUsage[] = [await stack.bff.child.call<ChildUsage>('gc')]
  let signInSeconds = 0
  for (let done = 0; done < sessions; done += batch) {
    // The emulator's cost per sign-in grows with the tokens it holds (it prunes them all on every
    // issue); emptying it between batches keeps the run linear. Sessions already made stay in
    // media-bff, idle, which is all this measures.
    await stack.restartEmulator()
    signInSeconds += await signInMany(stack.bff.url, Math.min(batch, sessions - done), SIGN_IN_CONCURRENCY)
    readings.push(await stack.bff.child.call<ChildUsage>('gc'))
  }
  const perSession = (pick: (usage: ChildUsage) => number): number => {
    const steps = readings.slice(1).map((usage, i) => (pick(usage) - pick(readings[i] as ChildUsage)) / batch)
    return median(steps.slice(Math.floor(steps.length / 2)))
  }
  const first = readings[0] as ChildUsage
  const last = readings.at(-1) as ChildUsage
  return {
    sessions,
    signInSeconds,
    rssPerSession: perSession((usage) => usage.memory.rss),
    heapPerSession: perSession((usage) => usage.memory.heapUsed),
    rssOverall: (last.memory.rss - first.memory.rss) / sessions,
    heapOverall: (last.memory.heapUsed - first.memory.heapUsed) / sessions
  }
}

export interface RedisMemoryResult {
  sessions: number
  /** Mean MEMORY USAGE of a `sess:` key and of a `grant:` key. */
  sessionKeyBytes: number
  grantKeyBytes: number
  /** MEMORY USAGE of the people's session indexes (`people:` hashes), per session they hold. */
  indexBytesPerSession: number
  /** Growth of Redis used_memory per sign-in: the keys plus the server's own bookkeeping. */
  usedMemoryPerSignIn: number
  /** Value lengths, to tell the data from Redis's overhead. */
  sessionValueBytes: number
  grantValueBytes: number
}

export async function redisMemoryScenario (stack: BffStack, redis: BenchRedis, prefix: string, sessions: number): Promise<RedisMemoryResult> {
  const usedMemory = async (): Promise<number> => Number(/used_memory:(\d+)/.exec(await redis.client.info('memory'))?.[1])
  const before = await usedMemory()
  for (let done = 0; done < sessions; done += 1000) {
    if (done > 0) await stack.restartEmulator()
    await signInMany(stack.bff.url, Math.min(1000, sessions - done), SIGN_IN_CONCURRENCY)
  }
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
  const indexes = await redis.client.keys(`${prefix}people:*`)
  let indexBytes = 0
  let indexed = 0
  for (const key of indexes) {
    indexBytes += Number(await redis.client.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'))
    indexed += await redis.client.hlen(key)
  }
  return {
    sessions,
    sessionKeyBytes: session.usage,
    grantKeyBytes: grant.usage,
    indexBytesPerSession: indexBytes / Math.max(1, indexed),
    usedMemoryPerSignIn: (after - before) / sessions,
    sessionValueBytes: session.length,
    grantValueBytes: grant.length
  }
}
