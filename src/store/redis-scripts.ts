// The conditional operations of KeyValueStore as Lua scripts: Redis runs a script atomically, so
// "read, compare, write" cannot interleave with another instance's write. Each script touches
// exactly one key, so they also work on Redis Cluster (no cross-slot access).
import type { Cluster, Redis } from 'ioredis'

const scripts = {
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

/** The client with the scripts above as commands (ioredis runs them by EVALSHA, loading on NOSCRIPT). */
export interface ScriptCommands {
  storeCompareAndSet: (key: string, expected: string, value: string, ttlMs: number) => Promise<number>
  storeDeleteIfEquals: (key: string, expected: string) => Promise<number>
  storeExpireIfEquals: (key: string, expected: string, ttlMs: number) => Promise<number>
  storeMapSet: (key: string, field: string, value: string, ttlMs: number, ...removing: string[]) => Promise<number>
}

export function defineStoreScripts (client: Redis | Cluster): ScriptCommands {
  for (const [name, lua] of Object.entries(scripts)) {
    client.defineCommand(name, { lua, numberOfKeys: 1 })
  }
  // defineCommand adds methods ioredis's types cannot know about; this is the one place that
  // says what they are, instead of augmenting ioredis's types for the whole program.
  return client as unknown as ScriptCommands
}
