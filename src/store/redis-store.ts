// KeyValueStore on Redis (single server, Sentinel or Cluster, see redis-url.ts), so any number of
// media-bff instances share one population of sessions, grants and locks.
//
// When Redis is unreachable every operation rejects with StoreUnavailableError: at once while the
// client knows the connection is down, and after at most commandTimeoutMs when Redis silently
// stops answering. The client keeps reconnecting on its own; once Redis is back the same store
// works again. Values are never logged or put into errors: they hold encrypted tokens.
//
// Redis at maxmemory with the noeviction policy refuses writes that need memory ("OOM command not
// allowed"): that is StoreFullError (a 503 like any outage), while reads, and so signed-in
// sessions, keep working.
import type { Cluster, Redis } from 'ioredis'
import { StoreFullError, StoreUnavailableError, type KeyValueStore } from './key-value-store.js'
import { createRedisClient, type StoreLogger } from './redis-client.js'
import { defineStoreScripts, HELD_BACK } from './redis-scripts.js'
import { wholeTtlMs } from './ttl.js'

export interface RedisStoreOptions {
  /** redis://, rediss://, redis+sentinel://host:port,.../master or redis+cluster://host:port,... */
  url: string
  /** Put before every key so several deployments can share one Redis. Keep it free of `{}` on Cluster. */
  keyPrefix?: string
  /** Over TLS: PEM certificates to trust instead of the system's (a private CA). */
  tlsCa?: string | undefined
  connectTimeoutMs?: number
  /** The longest any operation may take before it fails with StoreUnavailableError. */
  commandTimeoutMs?: number
  logger?: StoreLogger
}

export interface RedisKeyValueStore extends KeyValueStore {
  /** The connection the store uses, for what needs Redis itself (@fastify/rate-limit's counters). */
  readonly redisClient: Redis | Cluster
  /**
   * The same store, with every write that may take more room refused (StoreFullError) once the
   * node the key lives on has used `ceiling` of its maxmemory, checked by that node in the write
   * itself (src/store/redis-scripts.ts); reads and deletes always go through. `family` names it in
   * the error.
   */
  heldBackAbove: (ceiling: number, family: string) => KeyValueStore
}

export function createRedisStore ({
  url,
  keyPrefix = 'media-bff:',
  tlsCa,
  connectTimeoutMs = 2000,
  commandTimeoutMs = 1000,
  logger
}: RedisStoreOptions): RedisKeyValueStore {
  if (!Number.isFinite(commandTimeoutMs) || commandTimeoutMs <= 0) throw new RangeError('commandTimeoutMs must be a positive number')
  if (!Number.isFinite(connectTimeoutMs) || connectTimeoutMs <= 0) throw new RangeError('connectTimeoutMs must be a positive number')

  const { client, lastError } = createRedisClient(url, { connectTimeoutMs, commandTimeoutMs, tlsCa, logger })
  const scripts = defineStoreScripts(client)
  const keyOf = (key: string): string => keyPrefix + key
  let closed = false

  // The offline queue is off, so before the very first connection every command would fail
  // immediately; during start-up it may instead wait for that connection (within its deadline).
  let firstReady: Promise<void> | undefined = new Promise<void>((resolve) => {
    client.once('ready', () => {
      firstReady = undefined
      resolve()
    })
  })

  /**
   * Runs one Redis call within commandTimeoutMs; any failure becomes StoreUnavailableError. When
   * this process was busy past the deadline (a long turn of its event loop, a GC pause), the
   * reply may already be waiting on the socket: Node runs expired timers before it reads sockets,
   * so the deadline gives way to a reading of them (setImmediate comes after) and only then fails
   * the call. Redis's answer in time is never taken for silence because media-bff was slow.
   */
  const run = async <T>(operation: string, send: () => Promise<T>): Promise<T> => {
    if (closed) throw new StoreUnavailableError('redis store is closed')
    let timer: ReturnType<typeof setTimeout> | undefined
    let late: ReturnType<typeof setImmediate> | undefined
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        late = setImmediate(() => { reject(new StoreUnavailableError(`redis ${operation} timed out after ${commandTimeoutMs} ms`)) })
      }, commandTimeoutMs)
    })
    try {
      if (firstReady !== undefined) await Promise.race([firstReady, deadline])
      const reply = send()
      // If the deadline wins, the reply may still reject later; nobody is waiting for it.
      reply.catch(() => {})
      return await Promise.race([reply, deadline])
    } catch (error) {
      throw asUnavailable(operation, error)
    } finally {
      clearTimeout(timer)
      clearImmediate(late)
    }
  }

  const heldBack = (ceiling: number, family: string, answer: number): number => {
    if (answer === HELD_BACK) throw new StoreFullError(`${family} held back: redis has used ${Math.round(ceiling * 100)}% of its maxmemory, and the rest of its room is kept for what comes before ${family}`)
    return answer
  }

  const store: RedisKeyValueStore = {
    redisClient: client,
    heldBackAbove: (ceiling, family) => ({
      ...store,
      set: async (key, value, ttlMs) => {
        const wholeMs = wholeTtlMs(ttlMs)
        heldBack(ceiling, family, await run('set', () => scripts.storeHeldSet(keyOf(key), ceiling, value, wholeMs, '')))
      },
      setIfAbsent: async (key, value, ttlMs) => {
        const wholeMs = wholeTtlMs(ttlMs)
        return heldBack(ceiling, family, await run('setIfAbsent', () => scripts.storeHeldSet(keyOf(key), ceiling, value, wholeMs, 'NX'))) === 1
      },
      compareAndSet: async (key, expected, value, ttlMs) => {
        const wholeMs = wholeTtlMs(ttlMs)
        const written = expected === undefined
          ? await run('compareAndSet', () => scripts.storeHeldSet(keyOf(key), ceiling, value, wholeMs, 'NX'))
          : await run('compareAndSet', () => scripts.storeHeldCompareAndSet(keyOf(key), ceiling, expected, value, wholeMs))
        return heldBack(ceiling, family, written) === 1
      },
      mapSet: async (key, field, value, ttlMs, removing = []) => {
        const wholeMs = wholeTtlMs(ttlMs)
        return heldBack(ceiling, family, await run('mapSet', () => scripts.storeHeldMapSet(keyOf(key), ceiling, field, value, wholeMs, ...removing)))
      }
    }),
    get: async (key) => (await run('get', () => client.get(keyOf(key)))) ?? undefined,
    set: async (key, value, ttlMs) => {
      const wholeMs = wholeTtlMs(ttlMs)
      await run('set', () => client.set(keyOf(key), value, 'PX', wholeMs))
    },
    setIfAbsent: async (key, value, ttlMs) => {
      const wholeMs = wholeTtlMs(ttlMs)
      return (await run('setIfAbsent', () => client.set(keyOf(key), value, 'PX', wholeMs, 'NX'))) === 'OK'
    },
    delete: async (key) => { await run('delete', () => client.del(keyOf(key))) },
    compareAndSet: async (key, expected, value, ttlMs) => {
      const wholeMs = wholeTtlMs(ttlMs)
      if (expected === undefined) {
        return (await run('compareAndSet', () => client.set(keyOf(key), value, 'PX', wholeMs, 'NX'))) === 'OK'
      }
      return (await run('compareAndSet', () => scripts.storeCompareAndSet(keyOf(key), expected, value, wholeMs))) === 1
    },
    deleteIfEquals: async (key, expected) =>
      (await run('deleteIfEquals', () => scripts.storeDeleteIfEquals(keyOf(key), expected))) === 1,
    expireIfEquals: async (key, expected, ttlMs) => {
      const wholeMs = wholeTtlMs(ttlMs)
      return (await run('expireIfEquals', () => scripts.storeExpireIfEquals(keyOf(key), expected, wholeMs))) === 1
    },
    mapSet: async (key, field, value, ttlMs, removing = []) => {
      const wholeMs = wholeTtlMs(ttlMs)
      return await run('mapSet', () => scripts.storeMapSet(keyOf(key), field, value, wholeMs, ...removing))
    },
    readAndCount: async (key, initial, ttlMs, counter) => {
      const wholeMs = wholeTtlMs(ttlMs)
      if (counter === undefined) {
        // A plain GET costs the client less than a script; the script only for a value to write.
        const present = await run('readAndCount', () => client.get(keyOf(key)))
        if (present !== null) return { value: present }
        const [value] = await run('readAndCount', () => scripts.storeRead(keyOf(key), initial, wholeMs))
        return { value }
      }
      const windowMs = wholeTtlMs(counter.windowMs)
      const [value, count, resetInMs] = await run('readAndCount', () => scripts.storeReadAndCount(keyOf(key), keyOf(counter.key), initial, wholeMs, windowMs))
      return { value, count, resetInMs: Math.max(0, resetInMs) }
    },
    mapGetAll: async (key) => await run('mapGetAll', () => client.hgetall(keyOf(key))),
    mapDelete: async (key, fields) => {
      if (fields.length > 0) await run('mapDelete', () => client.hdel(keyOf(key), ...fields))
    },
    ping: async () => {
      try {
        await run('ping', () => client.ping())
      } catch (error) {
        // Say why, when the connection itself is what fails (refused, TLS, authentication).
        const why = lastError()
        throw why === undefined ? error : new StoreUnavailableError(`redis cannot be reached: ${why}`)
      }
    },
    close: async () => {
      if (closed) return
      closed = true
      try {
        // QUIT lets Redis finish what it was sent; if it cannot be sent (down), just drop the socket.
        if (client.status === 'ready') await withDeadline(client.quit(), commandTimeoutMs)
      } catch {}
      client.disconnect()
    }
  }
  return store
}

async function withDeadline<T> (promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<undefined>((resolve) => { timer = setTimeout(() => resolve(undefined), ms) })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

// ioredis errors can carry the command and its arguments (our encrypted values) as properties,
// which a logger's error serialiser would print; the cause keeps only the name, message and code.
function asUnavailable (operation: string, error: unknown): StoreUnavailableError {
  if (error instanceof StoreUnavailableError) return error
  const original = error instanceof Error ? error : new Error(String(error))
  const cause = new Error(original.message)
  cause.name = original.name
  const code = (original as { code?: unknown }).code
  if (typeof code === 'string') Object.assign(cause, { code })
  if (original.message.startsWith('OOM ')) return new StoreFullError(`redis ${operation} refused: ${original.message}`, { cause })
  return new StoreUnavailableError(`redis ${operation} failed: ${original.message}`, { cause })
}
