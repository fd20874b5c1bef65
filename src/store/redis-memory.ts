// How full Redis is, for what may take room there. Redis at maxmemory (noeviction) refuses every
// write that needs memory, a signed-in person's token refresh as much as a webhook's id, so room
// is shared out in tiers, each family of bookkeeping with a ceiling of its own below the next:
// webhooks (their ids and tokens, and the queue of their follow-ups) stop first, so a burst of
// them (or a leaked webhook key) never blocks the uploads of the people signed in; upload
// registrations and remembered finishes stop next; new sign-ins after them, so bookkeeping never
// refuses one; and the last of it is kept for the people already signed in, whose records only
// change in place. Each bookkeeping write checks its ceiling in the write itself, on the node the
// key lives on (src/store/redis-scripts.ts). New sign-ins are judged by a reading of the fullest
// master at most a tenth of a second old (a key's node is not known before it is written): a
// flood of callbacks shares readings instead of sending Redis one INFO each.

import type { Cluster, Redis } from 'ioredis'

/** Share of maxmemory beyond which each family of bookkeeping is refused, and new sign-ins. */
export const CEILINGS = {
  webhooks: 0.7,
  uploads: 0.8,
  finishes: 0.8,
  signIns: 0.9
} as const

export interface RedisMemoryWatch {
  /**
   * The used share of maxmemory on the fullest master (0..1 and beyond), from a reading at most
   * `maxAgeMs` old (default `everyMs`), shared with every caller meanwhile; undefined when no
   * master sets maxmemory, or before any reading succeeded.
   */
  fullness: (maxAgeMs?: number) => Promise<number | undefined>
}

/** How old a reading a new sign-in may be judged by: a burst of sign-ins adds little in this time. */
export const SIGN_IN_READING_MS = 100

export interface RedisMemoryWatchOptions {
  /** How old a reading may be before the next call takes a new one. */
  everyMs?: number
  now?: () => number
}

export function createRedisMemoryWatch (client: Redis | Cluster, { everyMs = 1000, now = Date.now }: RedisMemoryWatchOptions = {}): RedisMemoryWatch {
  let reading: { fullness: number | undefined, at: number } | undefined
  let inFlight: Promise<void> | undefined

  const read = async (): Promise<void> => {
    const masters = client.isCluster ? (client as Cluster).nodes('master') : [client as Redis]
    const infos = await Promise.all(masters.map(async (node) => await node.info('memory')))
    let fullest: number | undefined
    for (const info of infos) {
      const share = usedShare(info)
      if (share !== undefined) fullest = Math.max(fullest ?? 0, share)
    }
    reading = { fullness: fullest, at: now() }
  }
  const refresh = (): Promise<void> => {
    inFlight ??= read().catch(() => {
      // Unreachable: the write that asked will meet the same outage and report it itself.
    }).finally(() => { inFlight = undefined })
    return inFlight
  }

  return {
    async fullness (maxAgeMs = everyMs) {
      // One INFO round trip per maxAgeMs at most, shared by every caller meanwhile.
      if (reading === undefined || now() - reading.at >= maxAgeMs) await refresh()
      return reading?.fullness
    }
  }
}

/**
 * used_memory against maxmemory, as Redis itself compares them (replication and AOF buffers are
 * not counted); undefined when maxmemory is 0 (no limit) or the text is not INFO's.
 */
export function usedShare (info: string): number | undefined {
  const field = (name: string): number | undefined => {
    const match = new RegExp(`^${name}:(\\d+)\\r?$`, 'm').exec(info)
    return match === null ? undefined : Number(match[1])
  }
  const used = field('used_memory')
  const max = field('maxmemory')
  if (used === undefined || max === undefined || max === 0) return undefined
  return (used - (field('mem_not_counted_for_evict') ?? 0)) / max
}
