// Builds the ioredis client for a REDIS_URL and decides how it behaves when Redis goes away:
// commands fail at once instead of queueing (enableOfflineQueue off), nothing in flight is
// replayed later behind the caller's back (autoResendUnfulfilledCommands off), every command has
// a deadline (commandTimeout), and a connection that stops answering is torn down (socketTimeout)
// so the client reconnects, with capped, jittered backoff, forever. Discovery and failover for
// Sentinel and Cluster are ioredis's own.
import { Cluster, Redis, type RedisOptions } from 'ioredis'
import { parseRedisUrl, type RedisConnectionSpec } from './redis-url.js'

export interface StoreLogger {
  info: (details: object, message: string) => void
  warn: (details: object, message: string) => void
}

export interface RedisClientOptions {
  connectTimeoutMs: number
  commandTimeoutMs: number
  /** Over TLS: PEM certificates to trust instead of the system's (a private CA). */
  tlsCa?: string | undefined
  logger?: StoreLogger
}

export type RedisMode = RedisConnectionSpec['mode']

const maxReconnectDelayMs = 2000

/** 100, 200, 400 ... ms, capped, with ±20% jitter so many instances do not reconnect in step. */
export function reconnectDelayMs (attempt: number): number {
  const base = Math.min(maxReconnectDelayMs, 100 * 2 ** Math.min(attempt - 1, 10))
  return Math.round(base * (0.8 + Math.random() * 0.4))
}

export interface CreatedRedisClient {
  client: Redis | Cluster
  mode: RedisMode
  /** Why the connection last failed, while it is down (for readiness); undefined once connected. */
  lastError: () => string | undefined
}

export function createRedisClient (url: string, options: RedisClientOptions): CreatedRedisClient {
  const spec = parseRedisUrl(url)
  const client = buildClient(spec, options)
  let lastError: string | undefined
  client.on('ready', () => { lastError = undefined })
  // Connection errors only (ECONNREFUSED, a certificate refused, WRONGPASS): never a command's
  // arguments, never the URL.
  const remember = (error: Error): void => { lastError = error.message }
  client.on('error', remember)
  client.on('node error', remember)
  if (options.logger !== undefined) logConnectionState(client, spec.mode, options.logger)
  return { client, mode: spec.mode, lastError: () => lastError }
}

function buildClient (spec: RedisConnectionSpec, { connectTimeoutMs, commandTimeoutMs, tlsCa }: RedisClientOptions): Redis | Cluster {
  const overTls = spec.mode === 'single' ? /^rediss:/i.test(spec.url) : spec.tls
  // Over TLS the system's CAs are trusted, or only the private CA given (REDIS_TLS_CA_FILE).
  const tls = overTls ? { ...(tlsCa === undefined ? {} : { ca: tlsCa }) } : undefined
  const perConnection: RedisOptions = {
    ...(tls === undefined ? {} : { tls }),
    connectTimeout: connectTimeoutMs,
    // Only a backstop, for a connection that answers pings but never this command: a silent
    // Redis is noticed by socketTimeout below, and the store's own deadline (redis-store.ts) is
    // commandTimeoutMs. A timer fires before the socket is read once the process was busy past
    // it (a long turn of the event loop), so a deadline this short would fail replies that came
    // in time; the store's gives way to the socket first, this one cannot.
    commandTimeout: Math.max(10 * commandTimeoutMs, 10_000),
    // A half-open connection (peer gone without a FIN) would otherwise only be noticed by TCP
    // minutes later; with no reply for this long the socket is destroyed and rebuilt.
    socketTimeout: Math.max(2 * commandTimeoutMs, 1000),
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 1,
    // After a Sentinel failover the old master may answer READONLY until we reconnect.
    reconnectOnError: (error) => error.message.startsWith('READONLY'),
    retryStrategy: reconnectDelayMs,
    // Commands issued in the same tick (many requests at once) go out in one write and come back
    // in one read: fewer system calls per request under load, the same answers.
    enableAutoPipelining: true
  }

  if (spec.mode === 'single') return new Redis(spec.url, perConnection)

  const auth = {
    ...(spec.username === undefined ? {} : { username: spec.username }),
    ...(spec.password === undefined ? {} : { password: spec.password }),
    ...(tls === undefined ? {} : { tls })
  }

  if (spec.mode === 'sentinel') {
    return new Redis({
      ...perConnection,
      ...auth,
      sentinels: spec.sentinels,
      name: spec.masterName,
      ...(spec.db === undefined ? {} : { db: spec.db }),
      ...(spec.sentinelUsername === undefined ? {} : { sentinelUsername: spec.sentinelUsername }),
      ...(spec.sentinelPassword === undefined ? {} : { sentinelPassword: spec.sentinelPassword }),
      ...(tls === undefined ? {} : { enableTLSForSentinelMode: true, sentinelTLS: tls }),
      sentinelCommandTimeout: commandTimeoutMs,
      sentinelRetryStrategy: reconnectDelayMs
      // No failoverDetector: its +switch-master disconnect, landing while the client was
      // connecting, ended the client for good ("Connection is closed" from then on; seen in
      // test/store/redis-topologies.test.ts). A failover is followed without it: Redis closes
      // the clients of a master that dies or is demoted, a master that hangs is noticed by
      // socketTimeout, a READONLY answer reconnects, and each reconnection asks the Sentinels
      // for the master anew.
    })
  }

  const { retryStrategy, enableOfflineQueue, enableAutoPipelining: _notInCluster, ...nodeOptions } = perConnection
  return new Cluster(spec.nodes, {
    redisOptions: { ...nodeOptions, ...auth },
    enableOfflineQueue,
    // Off in a Cluster: ioredis's auto-pipelines are grouped per node and a MOVED answer to one
    // is not followed, so after a node has been down and back, keys of its slots kept failing
    // with MOVED (test/store/redis-topologies.test.ts, 'a node down').
    enableAutoPipelining: false,
    clusterRetryStrategy: retryStrategy,
    slotsRefreshTimeout: commandTimeoutMs
  })
}

// One line when the connection is lost, one when it is back: never the URL (it may hold a
// password), never a command or a value.
function logConnectionState (client: Redis | Cluster, mode: RedisMode, logger: StoreLogger): void {
  let connected = false
  let everConnected = false
  let reportedOutage = false
  const reportOutage = (error?: Error): void => {
    if (reportedOutage) return
    reportedOutage = true
    const details = error === undefined ? { mode } : { mode, reason: error.message }
    logger.warn(details, everConnected
      ? 'redis store connection lost; store operations fail fast until it is back'
      : 'redis store not reachable yet; store operations fail until it is')
  }
  client.on('ready', () => {
    logger.info({ mode }, everConnected ? 'redis store reconnected' : 'redis store connected')
    connected = true
    everConnected = true
    reportedOutage = false
  })
  client.on('close', () => {
    if (connected) reportOutage()
    connected = false
  })
  // While connected, errors are about single commands and reach their callers instead.
  client.on('error', (error: Error) => { if (!connected) reportOutage(error) })
  client.on('node error', (error: Error) => { if (!connected) reportOutage(error) })
}
