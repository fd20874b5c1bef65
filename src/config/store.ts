// Where sessions, grants and everything else are kept: in this process's memory, or in Redis
// (single, Sentinel or Cluster, over TLS with a private CA if need be).
import { readFileSync } from 'node:fs'
import type { DeclaredReader } from './declared-reader.js'
import { parseRedisUrl, passwordOf, RedisUrlError, withPassword } from '../store/redis-url.js'
import { readOptionalSetting } from './unset-on-purpose.js'

export interface StoreSettings {
  redisUrl: string | undefined
  redisKeyPrefix: string
  /** Without Redis: sign-ins held at once before a new one is refused (the in-memory stores are sized from it). */
  memoryMaxSessions: number
  /** PEM certificates to trust for Redis over TLS (REDIS_TLS_CA_FILE): a private CA; the system's otherwise. */
  redisTlsCa: string | undefined
}

export function readStoreSettings (read: DeclaredReader, production: boolean): StoreSettings {
  const redisUrl = readRedisUrl(read, production)
  return {
    redisUrl,
    redisKeyPrefix: read.string('REDIS_KEY_PREFIX'),
    memoryMaxSessions: read.integer('MEMORY_MAX_SESSIONS'),
    redisTlsCa: readRedisTlsCa(read, redisUrl)
  }
}

/**
 * REDIS_URL, with REDIS_PASSWORD put in: a Redis whose password is a secret of its own (a
 * Kubernetes Secret of one key, say) while its address is plain configuration.
 */
function readRedisUrl (read: DeclaredReader, production: boolean): string | undefined {
  // `none`: one instance, in memory, on purpose (src/config/unset-on-purpose.ts).
  const url = readOptionalSetting(read, 'REDIS_URL', production)
  const password = read.raw('REDIS_PASSWORD')
  if (url === undefined) {
    if (password !== undefined) read.problem('REDIS_PASSWORD', 'is only used with REDIS_URL')
    return undefined
  }
  // The client's own parser: what passes here is what the store will connect with.
  try {
    parseRedisUrl(url)
    if (password === undefined) return url
    if (passwordOf(url) !== undefined) {
      read.problem('REDIS_PASSWORD', 'is set and REDIS_URL carries a password too: keep one of them')
      return url
    }
    const combined = withPassword(url, password)
    parseRedisUrl(combined)
    return combined
  } catch (error) {
    if (!(error instanceof RedisUrlError)) throw error
    read.problem('REDIS_URL', error.message)
    return url
  }
}

/**
 * REDIS_TLS_CA_FILE: the certificates (PEM) of a private CA that signed Redis's TLS certificate,
 * read once at start; only with a rediss:// URL, where TLS is in use.
 */
function readRedisTlsCa (read: DeclaredReader, redisUrl: string | undefined): string | undefined {
  const file = read.raw('REDIS_TLS_CA_FILE')
  if (file === undefined) return undefined
  if (redisUrl === undefined || !/^rediss(\+\w+)?:/i.test(redisUrl)) {
    read.problem('REDIS_TLS_CA_FILE', 'is only used with a TLS REDIS_URL (rediss://, rediss+sentinel://, rediss+cluster://)')
    return undefined
  }
  let pem: string
  try {
    pem = readFileSync(file, 'utf8')
  } catch (error) {
    read.problem('REDIS_TLS_CA_FILE', `${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`)
    return undefined
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) read.problem('REDIS_TLS_CA_FILE', `${file} holds no PEM certificate`)
  return pem
}
