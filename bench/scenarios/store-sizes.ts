// 8. What each store family takes (src/store/store-families.ts): in memory, each filled to its
// bound at the default MEMORY_MAX_SESSIONS; on Redis, bytes per unit of each kind of key. The
// sizing tables of docs/guide/operate.md ("Sizing the stores") come from these figures.
import { startChild } from '../lib/child.js'
import type { BenchRedis } from '../lib/redis.js'

export interface StoreSizesResult {
  memory: { maxSessions: number, rows: Array<{ family: string, unit: string, units: number, entries: number, bytes: number }> }
  redis: { units: number, rows: Array<{ unit: string, bytes: number }> }
}

export async function storeSizesScenario (redis: BenchRedis, maxSessions: number, redisUnits: number): Promise<StoreSizesResult> {
  const child = startChild('./store-size-child.ts', ['--expose-gc'])
  try {
    const memory = await child.call<StoreSizesResult['memory']>('memory', { maxSessions })
    const onRedis = await child.call<StoreSizesResult['redis']>('redis', { url: redis.url, units: redisUnits })
    return { memory, redis: onRedis }
  } finally {
    await child.stop()
  }
}
