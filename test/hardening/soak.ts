// Sustained load: media-bff replicas (child processes, so each has its own RSS and logs) over one
// real Redis, in front of the emulator, with access tokens expiring many times during the run.
// runSoak measures; soakProblems (soak-report.ts) judges.
import { randomBytes } from 'node:crypto'
import { bffEnv, startEmulatorFor, UNLIMITED_RATES } from '../helpers/bff.js'
import { freePort } from '../helpers/ports.js'
import { startRedis } from '../helpers/redis.js'
import { refreshEstimate, refreshLowerBound, refreshUpperBound } from './refresh-bounds.js'
import { startReplica, type Replica } from './replica.js'
import { SecretLedger } from './secrets.js'
import type { SoakReport } from './soak-report.js'
import { driveTraffic, inPool, signInSession, type RequestRecord } from './soak-traffic.js'

export interface SoakOptions {
  durationMs: number
  sessions: number
  replicas?: number
  /** Emulator access-token lifetime; short, so tokens expire many times in the run. */
  accessTokenTtlS?: number
  /** Sign-ins at once. */
  signInPool?: number
  /**
   * Mean pause of a session between calls. The default keeps 200 sessions below what two
   * replicas and the emulator sustain on a shared 2-core machine; far shorter pauses measure
   * overload (503 and 504 shed load) instead of steady traffic.
   */
  thinkMs?: number
  progress?: (line: string) => void
}

export async function runSoak (options: SoakOptions): Promise<SoakReport> {
  const { durationMs, sessions: sessionCount, replicas: replicaCount = 2, accessTokenTtlS = 3, signInPool = 16, thinkMs = 750 } = options
  const progress = options.progress ?? (() => {})
  const redis = await startRedis()
  const ports = await Promise.all(Array.from({ length: replicaCount }, async () => await freePort()))
  // Every replica answers for the same PUBLIC_URL, as behind a load balancer.
  const publicUrl = `http://127.0.0.1:${ports[0]!}`
  // One person per session, as in life: a person's sessions are capped (50), and people do not
  // sign in two hundred times at once.
  const people = Array.from({ length: sessionCount }, (_, i) => `soak-${i + 1}`)
  const emulator = await startEmulatorFor(ports[0]!, {
    accessTokenTtl: accessTokenTtlS,
    clientSecret: randomBytes(24).toString('base64url'),
    users: people.map((name) => ({ name, scopes: ['basic', 'user.info', 'upload'] }))
  })
  const env = bffEnv(emulator, publicUrl, {
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: 'soak:',
    OAUTH_SCOPES: 'basic user.info upload',
    LOG_LEVEL: 'info',
    ...UNLIMITED_RATES
  })
  const replicas: Replica[] = []
  try {
    replicas.push(...await Promise.all(ports.map(async (port, i) => await startReplica({ name: `replica ${i + 1}`, env, port }))))
    const urls = replicas.map((replica) => replica.url)
    const rssAtStart = await Promise.all(replicas.map(async (replica) => await replica.rssKb()))
    progress(`${replicaCount} replicas up; signing in ${sessionCount} sessions`)

    const ledger = new SecretLedger()
    const signInStarted = Date.now()
    const sessions = await inPool(people, signInPool, async (person) => await signInSession(urls, ledger, person))
    const signInMs = Date.now() - signInStarted
    const rssAfterSignIn = await Promise.all(replicas.map(async (replica) => await replica.rssKb()))
    progress(`signed in in ${signInMs} ms; traffic for ${durationMs} ms`)

    const peak = [...rssAfterSignIn]
    const sampler = setInterval(() => {
      for (const [i, replica] of replicas.entries()) {
        replica.rssKb().then((kb) => { peak[i] = Math.max(peak[i]!, kb) }, () => {})
      }
    }, 1000)
    const trafficStarted = Date.now()
    let records: RequestRecord[]
    try {
      records = await driveTraffic(sessions, urls, trafficStarted + durationMs, thinkMs)
    } finally {
      clearInterval(sampler)
    }
    const trafficMs = Date.now() - trafficStarted
    progress(`${records.length} requests; checking`)

    const signedInAtEnd = (await inPool(sessions, 32, async (session) => {
      const answer = await session.browser.get(`${urls[Math.floor(Math.random() * urls.length)]!}/auth/session`)
      return answer.status === 200 && answer.json().authenticated === true
    })).filter(Boolean).length
    const rssAtEnd = await Promise.all(replicas.map(async (replica) => await replica.rssKb().catch(() => 0)))

    const ttlMs = accessTokenTtlS * 1000
    const timelines = sessions.map((session) => session.timeline)
    const perGrant = await refreshesPerGrant(emulator.baseUrl)
    const counters = emulator.counters()

    for (const session of sessions) ledger.addCookies(session.browser)
    await ledger.addEmulator(emulator)
    const output = replicas.map((replica) => replica.output()).join('\n')

    return {
      sessions: sessionCount,
      replicas: replicaCount,
      accessTokenTtlS,
      signInMs,
      trafficMs,
      requests: {
        total: records.length,
        byRoute: countBy(records, (record) => record.route),
        byReplica: replicas.map((_replica, i) => records.filter((record) => record.replica === i).length),
        perSecond: records.length / (trafficMs / 1000)
      },
      statuses: countBy(records, (record) => String(record.status)),
      errors: records.filter((record) => record.status !== 200).length,
      errorSamples: [...new Set(records.filter((record) => record.problem !== undefined).map((record) => `${record.route} ${record.status} ${record.problem ?? ''}`))].slice(0, 5),
      latencyMs: percentiles(records.map((record) => record.ms)),
      refreshes: {
        emulator: counters.tokenGrants.refresh_token ?? 0,
        replicas: sumRecords(await Promise.all(replicas.map(async (replica) => await refreshMetrics(replica.url)))),
        lowerBound: sum(timelines.map((timeline) => refreshLowerBound(timeline, ttlMs))),
        upperBound: sum(timelines.map((timeline) => refreshUpperBound(timeline, ttlMs))),
        estimate: sum(timelines.map((timeline) => refreshEstimate(timeline, ttlMs))),
        reuseDetections: counters.refreshReuseDetections,
        grants: perGrant.length,
        maxPerGrant: Math.max(0, ...perGrant),
        maxUpperBoundPerSession: Math.max(0, ...timelines.map((timeline) => refreshUpperBound(timeline, ttlMs)))
      },
      signedInAtEnd,
      memory: replicas.map((replica, i) => ({
        name: replica.name,
        startKb: rssAtStart[i]!,
        afterSignInKb: rssAfterSignIn[i]!,
        peakKb: Math.max(peak[i]!, rssAtEnd[i]!),
        endKb: rssAtEnd[i]!,
        aliveAtEnd: replica.alive()
      })),
      logs: { lines: output.split('\n').length, secretsSearched: ledger.size, secretKinds: ledger.kinds(), leaks: ledger.leaksIn(output) }
    }
  } finally {
    await Promise.all(replicas.map(async (replica) => { await replica.stop() }))
    await emulator.stop()
    await redis.destroy()
  }
}

/** Refreshes of each grant: access tokens issued in its token family, minus the sign-in's. */
async function refreshesPerGrant (emulatorBaseUrl: string): Promise<number[]> {
  const body = await (await fetch(`${emulatorBaseUrl}/__emulator/tokens`)).json() as { access_tokens: Array<{ family: string }> }
  const families = countBy(body.access_tokens, (token) => token.family)
  return Object.values(families).map((issued) => issued - 1)
}

/** media_bff_token_refreshes_total by outcome, from one replica's /metrics. */
async function refreshMetrics (replicaUrl: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${replicaUrl}/metrics`)).text()
  const counts: Record<string, number> = {}
  for (const [, outcome, value] of text.matchAll(/^media_bff_token_refreshes_total\{outcome="([a-z_]+)"\} (\d+)$/gm)) counts[outcome!] = Number(value)
  return counts
}

function countBy<T> (items: T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1
  return counts
}

function sumRecords (records: Array<Record<string, number>>): Record<string, number> {
  const total: Record<string, number> = {}
  for (const record of records) for (const [key, value] of Object.entries(record)) total[key] = (total[key] ?? 0) + value
  return total
}

const sum = (values: number[]): number => values.reduce((total, value) => total + value, 0)

function percentiles (values: number[]): SoakReport['latencyMs'] {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: sorted.at(-1) ?? 0 }
}
