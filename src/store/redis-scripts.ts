// The conditional operations of KeyValueStore as Lua scripts: Redis runs a script atomically, so
// "read, compare, write" cannot interleave with another instance's write. Each script touches
// exactly one key, so they also work on Redis Cluster (no cross-slot access).
//
// The held-back writes (src/store/redis-memory.ts) check how full the server is in the same
// script as the write: INFO's used memory against maxmemory, as Redis itself compares them, read
// by the node the key lives on at the moment of the write. No figure read earlier, by this
// instance or another, can let a burst of writes run past a family's ceiling.
import type { Cluster, Redis } from 'ioredis'

/** Lua: whether this node's used share of maxmemory has reached `ceiling` (none without maxmemory). */
export const FULL_AT = `
  local function full_at (ceiling)
    local info = redis.call('INFO', 'memory')
    local max = tonumber(string.match(info, 'maxmemory:(%d+)')) or 0
    if max == 0 then return false end
    local used = tonumber(string.match(info, 'used_memory:(%d+)')) or 0
    local uncounted = tonumber(string.match(info, 'mem_not_counted_for_evict:(%d+)')) or 0
    return (used - uncounted) / max >= tonumber(ceiling)
  end`

/** What a held-back write answers when its family's ceiling is reached. */
export const HELD_BACK = -1

const scripts = {
  // ARGV: ceiling, value, ttlMs, 'NX' or ''. 1 written, 0 not (NX, present), -1 held back.
  storeHeldSet: `${FULL_AT}
    if full_at(ARGV[1]) then return -1 end
    if ARGV[4] == 'NX' then
      if redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3], 'NX') then return 1 end
      return 0
    end
    redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
    return 1`,
  // ARGV: ceiling, expected, value, ttlMs. 1 written, 0 not (another value), -1 held back.
  storeHeldCompareAndSet: `${FULL_AT}
    if redis.call('GET', KEYS[1]) ~= ARGV[2] then return 0 end
    if full_at(ARGV[1]) then return -1 end
    redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
    return 1`,
  // ARGV: ceiling, field, value, ttlMs, then fields to remove. Fields held, or -1 held back.
  storeHeldMapSet: `${FULL_AT}
    if full_at(ARGV[1]) then return -1 end
    for i = 5, #ARGV do redis.call('HDEL', KEYS[1], ARGV[i]) end
    redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
    if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[4]) then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
    return redis.call('HLEN', KEYS[1])`,
  // ARGV: expected, value, ttlMs. (The "expected absent" case is SET NX, no script needed.)
  storeCompareAndSet: `
    if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
    redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
    return 1`,
  // ARGV: expected
  storeDeleteIfEquals: `
    if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
    return redis.call('DEL', KEYS[1])`,
  // ARGV: expected, ttlMs
  storeExpireIfEquals: `
    if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
    return redis.call('PEXPIRE', KEYS[1], ARGV[2])`,
  // ARGV: field, value, ttlMs, then fields to remove. The TTL only ever grows: the map lives as
  // long as its longest-lived field needs.
  storeMapSet: `
    for i = 4, #ARGV do redis.call('HDEL', KEYS[1], ARGV[i]) end
    redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
    if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
    return redis.call('HLEN', KEYS[1])`
} as const

// KEYS: the value's key, then the counter's. ARGV: initial, ttlMs, windowMs. One script per key
// count: ioredis defines a command with a fixed number of keys.
const readValue = `
    local value = redis.call('GET', KEYS[1])
    if not value then
      redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
      value = ARGV[1]
    end`
const readScripts = {
  storeRead: `${readValue}
    return {value}`,
  storeReadAndCount: `${readValue}
    local count = redis.call('INCR', KEYS[2])
    if count == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
    return {value, count, redis.call('PTTL', KEYS[2])}`
} as const

/** The client with the scripts above as commands (ioredis runs them by EVALSHA, loading on NOSCRIPT). */
export interface ScriptCommands {
  storeHeldSet: (key: string, ceiling: number, value: string, ttlMs: number, mode: 'NX' | '') => Promise<number>
  storeHeldCompareAndSet: (key: string, ceiling: number, expected: string, value: string, ttlMs: number) => Promise<number>
  storeHeldMapSet: (key: string, ceiling: number, field: string, value: string, ttlMs: number, ...removing: string[]) => Promise<number>
  storeCompareAndSet: (key: string, expected: string, value: string, ttlMs: number) => Promise<number>
  storeDeleteIfEquals: (key: string, expected: string) => Promise<number>
  storeExpireIfEquals: (key: string, expected: string, ttlMs: number) => Promise<number>
  storeMapSet: (key: string, field: string, value: string, ttlMs: number, ...removing: string[]) => Promise<number>
  storeRead: (key: string, initial: string, ttlMs: number) => Promise<[string]>
  storeReadAndCount: (key: string, counterKey: string, initial: string, ttlMs: number, windowMs: number) => Promise<[string, number, number]>
}

export function defineStoreScripts (client: Redis | Cluster): ScriptCommands {
  for (const [name, lua] of Object.entries(scripts)) {
    client.defineCommand(name, { lua, numberOfKeys: 1 })
  }
  client.defineCommand('storeRead', { lua: readScripts.storeRead, numberOfKeys: 1 })
  client.defineCommand('storeReadAndCount', { lua: readScripts.storeReadAndCount, numberOfKeys: 2 })
  // defineCommand adds methods ioredis's types cannot know about; this is the one place that
  // says what they are, instead of augmenting ioredis's types for the whole program.
  return client as unknown as ScriptCommands
}
