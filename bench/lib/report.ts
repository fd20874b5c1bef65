// The results as markdown: the targets with PASS/MISS first, then the figures behind them, the
// machine they were taken on, and the analysis kept in bench/analysis.md.
import { cpus, loadavg, platform, release } from 'node:os'
import type { Plan } from './plan.js'
import type { RegisterRow } from '../scenarios/register.js'
import type { HopResult, HopRow } from '../scenarios/hop.js'
import type { RelayResult } from '../scenarios/relay.js'
import type { TracingResult } from '../scenarios/tracing.js'
import type { NodeVersionsResult } from '../scenarios/node-versions.js'
import { CONNECTIONS as TRIP_CONNECTIONS, type RedisTripsRow } from '../scenarios/redis-trips.js'
import type { AuthCheckRow } from '../scenarios/auth-check.js'
import type { SessionRow } from '../scenarios/session.js'
import type { StampedeResult } from '../scenarios/stampede.js'
import type { IdleMemoryResult, RedisMemoryResult } from '../scenarios/memory.js'
import type { LiveChannelsResult } from '../scenarios/live-channels.js'
import type { CpuResult } from '../scenarios/cpu.js'
import type { WebhooksResult } from '../scenarios/webhooks.js'
import type { StoreSizesResult } from '../scenarios/store-sizes.js'
import type { SelfTime } from './profile-top.js'
import type { LoadResult } from './load.js'
import type { LoopDelay } from './child.js'
import { FLOOR_TARGETS, HOP_TARGETS, LIVE_CHANNEL_TARGETS, LOG_TARGETS, SESSION_TARGETS, TARGET_CONNECTIONS } from './targets.js'

export interface Results {
  plan: Plan
  startedAt: Date
  seconds: number
  loadBefore: number[]
  hop?: HopResult
  register?: RegisterRow[]
  relay?: RelayResult
  /** The same two scenarios on a stack whose store is Redis. */
  registerOnRedis?: RegisterRow[]
  relayOnRedis?: RelayResult
  tracing?: TracingResult
  nodes?: NodeVersionsResult
  redisTrips?: RedisTripsRow[]
  sessions: SessionRow[]
  authCheck?: AuthCheckRow
  stampedes: StampedeResult[]
  idleMemory?: IdleMemoryResult
  liveChannels?: LiveChannelsResult
  webhooks?: WebhooksResult
  storeSizes?: StoreSizesResult
  redisMemory?: RedisMemoryResult
  cpu?: CpuResult
  profiles: Array<{ name: string, file: string, top: SelfTime[] }>
}

const ms = (value: number): string => Number.isFinite(value) ? `${value.toFixed(value < 10 ? 2 : 1)} ms` : 'n/a'
const rps = (value: number): string => `${Math.round(value)}/s`
const ratio = (value: number): string => Number.isFinite(value) ? value.toFixed(2) : 'n/a'
const bytes = (value: number): string => `${Math.round(value)} B`
const us = (value: number | undefined): string => value !== undefined && Number.isFinite(value) ? `${Math.round(value)} µs` : 'n/a'
const verdict = (ok: boolean): string => ok ? 'PASS' : '**MISS**'
/** media-bff's CPU per request over the reference's: the first watched process of each. */
const cpuRatio = (bff: LoadResult, reference: LoadResult): number => (bff.cpuUs[0] ?? Number.NaN) / (reference.cpuUs[0] ?? Number.NaN)

const CALL_NAMES: Record<HopRow['call'], string> = { register: 'POST /uploads/register', relay: 'relayed GET /api/folders/0/contents' }

/** The targets' own rows: media-bff beside the bare hop, both in front of the cheap stub. */
function hopTargetRows (hop: HopResult): string[][] {
  const rows: string[][] = []
  for (const row of hop.rows.filter((each) => each.logs === 'warn')) {
    const need = row.store === 'redis' ? HOP_TARGETS.redisShare : row.call === 'register' ? HOP_TARGETS.registerShare : HOP_TARGETS.relayShare
    const share = row.bff.rps / row.hop.rps
    const cpu = cpuRatio(row.bff, row.hop)
    rows.push([`${CALL_NAMES[row.call]} vs bare hop, cheap stub upstream, ${row.store} store, ${hop.connections} connections`, `>= ${need}`, `${ratio(share)} (${rps(row.bff.rps)} vs ${rps(row.hop.rps)}; CPU/req ${us(row.bff.cpuUs[0])} vs ${us(row.hop.cpuUs[0])}, ${ratio(cpu)}x; p50 added ${ms(row.bff.p50 - row.hop.p50)})`, verdict(share >= need)])
  }
  for (const logged of hop.rows.filter((each) => each.logs === 'info')) {
    const quiet = hop.rows.find((each) => each.logs === 'warn' && each.store === logged.store && each.call === logged.call)
    if (quiet === undefined) continue
    const cost = 1 - logged.bff.rps / quiet.bff.rps
    rows.push([`${CALL_NAMES[logged.call]}: production's request logs (LOG_LEVEL=info) over warnings only, ${logged.store} store`, `cost <= ${LOG_TARGETS.maxThroughputCost * 100}%`, `${(cost * 100).toFixed(1)}% of req/s (${rps(logged.bff.rps)} vs ${rps(quiet.bff.rps)}; CPU/req ${us(logged.bff.cpuUs[0])} vs ${us(quiet.bff.cpuUs[0])}, ${ratio(cpuRatio(logged.bff, quiet.bff))}x)`, verdict(cost <= LOG_TARGETS.maxThroughputCost)])
  }
  return rows
}

function targetRows (r: Results): string[][] {
  const rows: string[][] = r.hop === undefined ? [] : hopTargetRows(r.hop)
  const reg = r.register?.find((row) => row.connections === TARGET_CONNECTIONS)
  if (reg !== undefined) {
    const share = reg.bff.rps / reg.hop.rps
    const added = reg.bff.p50 - reg.hop.p50
    const cpu = cpuRatio(reg.bff, reg.hop)
    rows.push([`register throughput vs bare hop, emulator upstream, ${TARGET_CONNECTIONS} connections`, `(${HOP_TARGETS.registerShare} with the stub)`, `${ratio(share)} (${rps(reg.bff.rps)} vs ${rps(reg.hop.rps)})`, 'info'])
    rows.push([`register p50 added to bare hop, ${TARGET_CONNECTIONS} connections`, `<= ${HOP_TARGETS.registerAddedP50Ms} ms`, `${ms(added)} (${ms(reg.bff.p50)} vs ${ms(reg.hop.p50)})`, verdict(added <= HOP_TARGETS.registerAddedP50Ms)])
    rows.push([`register CPU/req, media-bff over bare hop, ${TARGET_CONNECTIONS} connections`, `<= ${HOP_TARGETS.cpuPerRequestRatio}x`, `${ratio(cpu)}x (${us(reg.bff.cpuUs[0])} vs ${us(reg.hop.cpuUs[0])})`, verdict(cpu <= HOP_TARGETS.cpuPerRequestRatio)])
    const floorShare = reg.bff.rps / reg.floor.rps
    rows.push([`register throughput vs emulator directly (floor), ${TARGET_CONNECTIONS} connections`, `(was >= ${FLOOR_TARGETS.registerShare})`, `${ratio(floorShare)} (${rps(reg.bff.rps)} vs ${rps(reg.floor.rps)})`, 'info'])
    rows.push([`register p50 added to floor, ${TARGET_CONNECTIONS} connections`, `(was <= ${FLOOR_TARGETS.registerAddedP50Ms} ms)`, `${ms(reg.bff.p50 - reg.floor.p50)} (${ms(reg.bff.p50)} vs ${ms(reg.floor.p50)})`, 'info'])
  }
  const relay = r.relay
  if (relay !== undefined) {
    const share = relay.bff.rps / relay.hop.rps
    const cpu = cpuRatio(relay.bff, relay.hop)
    rows.push([`relayed GET /api/folders/0/contents vs bare hop, emulator upstream, ${relay.connections} connections`, `(${HOP_TARGETS.relayShare} with the stub)`, `${ratio(share)} (${rps(relay.bff.rps)} vs ${rps(relay.hop.rps)}; p50 added ${ms(relay.bff.p50 - relay.hop.p50)})`, 'info'])
    rows.push([`relay CPU/req, media-bff over bare hop, ${relay.connections} connections`, `<= ${HOP_TARGETS.cpuPerRequestRatio}x`, `${ratio(cpu)}x (${us(relay.bff.cpuUs[0])} vs ${us(relay.hop.cpuUs[0])})`, verdict(cpu <= HOP_TARGETS.cpuPerRequestRatio)])
    rows.push([`relay throughput vs emulator directly (floor), ${relay.connections} connections`, '(no target)', `${ratio(relay.bff.rps / relay.direct.rps)} (${rps(relay.bff.rps)} vs ${rps(relay.direct.rps)})`, 'info'])
  }
  const regOnRedis = r.registerOnRedis?.find((row) => row.connections === TARGET_CONNECTIONS)
  if (regOnRedis !== undefined) {
    const share = regOnRedis.bff.rps / regOnRedis.hop.rps
    rows.push([`register throughput vs bare hop, emulator upstream, Redis store, ${TARGET_CONNECTIONS} connections`, `(${HOP_TARGETS.redisShare} with the stub)`, `${ratio(share)} (${rps(regOnRedis.bff.rps)} vs ${rps(regOnRedis.hop.rps)}; CPU/req ${ratio(cpuRatio(regOnRedis.bff, regOnRedis.hop))}x)`, 'info'])
  }
  if (r.relayOnRedis !== undefined) {
    const { bff, hop, connections } = r.relayOnRedis
    rows.push([`relayed GET /api/folders/0/contents vs bare hop, emulator upstream, Redis store, ${connections} connections`, `(${HOP_TARGETS.redisShare} with the stub)`, `${ratio(bff.rps / hop.rps)} (${rps(bff.rps)} vs ${rps(hop.rps)}; CPU/req ${ratio(cpuRatio(bff, hop))}x)`, 'info'])
  }
  const off = r.tracing?.rows.find((row) => row.variant === 'off')
  for (const row of r.tracing?.rows.filter((each) => each.variant.startsWith('on')) ?? []) {
    if (off === undefined) break
    rows.push([`tracing ${row.variant}: CPU/req over tracing off, register and relay`, '(no target)', `${ratio(cpuRatio(row.register, off.register))}x and ${ratio(cpuRatio(row.relay, off.relay))}x (${us(row.register.cpuUs[0])} vs ${us(off.register.cpuUs[0])}; ${us(row.relay.cpuUs[0])} vs ${us(off.relay.cpuUs[0])})`, 'info'])
  }
  for (const row of r.sessions) {
    const need = row.store === 'memory' ? SESSION_TARGETS.memoryShare : SESSION_TARGETS.redisShare
    const share = row.bff.rps / row.bare.rps
    rows.push([`GET /auth/session vs bare Fastify, ${row.store} store`, `>= ${need}`, `${ratio(share)} (${rps(row.bff.rps)} vs ${rps(row.bare.rps)})`, verdict(share >= need)])
  }
  for (const s of r.stampedes) {
    const ok = s.refreshes === 1 && s.reuseDetections === 0 && s.succeeded === s.concurrency
    rows.push([`refresh stampede, ${s.concurrency} requests, ${s.instances} instance(s), ${s.store}`, '1 refresh, all 200',
      `${s.refreshes} refresh(es), ${s.succeeded}/${s.concurrency} ok, p99 ${ms(s.p99)}`, verdict(ok)])
  }
  if (r.redisMemory !== undefined) {
    const total = r.redisMemory.sessionKeyBytes + r.redisMemory.grantKeyBytes
    rows.push(['Redis bytes per session + grant (MEMORY USAGE)', '<= 3072 B', `${bytes(total)} (${bytes(r.redisMemory.sessionKeyBytes)} + ${bytes(r.redisMemory.grantKeyBytes)})`, verdict(total <= 3072)])
  }
  const live = r.liveChannels
  if (live !== undefined) {
    const own = live.heapPerChannel - live.bareHeapPerChannel
    rows.push(['heap per open live channel, media-bff\'s own (over a bare Fastify channel)', `<= ${LIVE_CHANNEL_TARGETS.ownHeapBytes} B`, `${bytes(own)} (${bytes(live.heapPerChannel)} vs ${bytes(live.bareHeapPerChannel)})`, verdict(own <= LIVE_CHANNEL_TARGETS.ownHeapBytes)])
    rows.push(['heap per open live channel, all told', `<= ${LIVE_CHANNEL_TARGETS.ownHeapBytes} B`, `${bytes(live.heapPerChannel)} (a bare Fastify channel: ${bytes(live.bareHeapPerChannel)})`, verdict(live.heapPerChannel <= LIVE_CHANNEL_TARGETS.ownHeapBytes)])
  }
  if (r.idleMemory !== undefined) {
    rows.push(['RSS per idle in-memory session', '<= 2048 B', `${bytes(r.idleMemory.rssPerSession)} (${r.idleMemory.sessions} sessions)`, verdict(r.idleMemory.rssPerSession <= 2048)])
  }
  if (r.cpu !== undefined) {
    rows.push(['media-bff CPU per 1 000 registrations', '(no target)', `${ms(r.cpu.bffUserMs + r.cpu.bffSystemMs)} (emulator: ${ms(r.cpu.emulatorMs)})`, 'info'])
  }
  return rows
}

function table (header: string[], rows: string[][]): string {
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n')
}

export function renderResults (r: Results, analysis: string | undefined): string {
  const cpu = cpus()
  const out: string[] = []
  out.push('# media-bff benchmark results', '')
  out.push(`${r.startedAt.toISOString()} · ${r.plan.quick ? '`npm run bench -- --quick`' : '`npm run bench`'} · ${Math.round(r.seconds)} s`, '')
  out.push(`Machine: ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), ${platform()} ${release()}, Node ${process.version}; ` +
    `load average ${r.loadBefore.map((l) => l.toFixed(1)).join(' ')} before, ${loadavg().map((l) => l.toFixed(1)).join(' ')} after. ` +
    'Everything on loopback: load generator (autocannon, the orchestrating process), media-bff, the emulator and Redis each in a process of their own, sharing these cores.', '')
  out.push('## Targets', '')
  out.push(table(['measure', 'target', 'measured', 'result'], targetRows(r)), '')

  const hop = r.hop
  if (hop !== undefined) {
    out.push('## Register and the relay beside the bare hop, both in front of a stub as cheap as the hop', '')
    out.push(table(['call', 'store', 'logs', 'hop req/s', 'media-bff req/s', 'ratio to hop', 'p50: hop / media-bff', 'p99: hop / media-bff', 'CPU/req: hop', 'CPU/req: media-bff', 'CPU ratio', 'failed'],
      hop.rows.map((row) => [CALL_NAMES[row.call], row.store, row.logs === 'info' ? 'production (info)' : 'warnings only', rps(row.hop.rps), rps(row.bff.rps), ratio(row.bff.rps / row.hop.rps),
        `${ms(row.hop.p50)} / ${ms(row.bff.p50)}`, `${ms(row.hop.p99)} / ${ms(row.bff.p99)}`, us(row.hop.cpuUs[0]), us(row.bff.cpuUs[0]), `${ratio(cpuRatio(row.bff, row.hop))}x`, String(row.hop.failed + row.bff.failed)])), '')
    out.push(`Median of ${r.plan.hop.rounds} round(s) of ${r.plan.hop.seconds} s each at ${hop.connections} connections, media-bff and the hop taking turns. ` +
      `Both call a stub of the service (\`bench/lib/stub-service-child.ts\`) that answers from bytes worked out at its start: ${us(hop.stubCpuUs)} of CPU per call, against the emulator's 80 µs or so, so the ratios show what media-bff adds rather than the upstream's cost. ` +
      'The hop is the same bare Fastify+undici hop as elsewhere; the relayed answer is a listing of the emulator\'s shape (20 files, their links). ' +
      '"production (info)": media-bff with its own logger at LOG_LEVEL=info, as every deployment runs it, its standard output a pipe this process reads; every other media-bff of the benchmark logs nothing. Redis\'s CPU is in no figure.', '')
  }

  if (r.register !== undefined) {
    out.push('## POST /uploads/register: media-bff vs a bare Fastify+undici hop (the reference) and the emulator directly (floor)', '')
    out.push(table(['connections', 'hop req/s', 'media-bff req/s', 'ratio to hop', 'hop p50', 'media-bff p50', 'added p50', 'hop p99', 'media-bff p99', 'CPU/req: hop + emulator', 'CPU/req: media-bff + emulator', 'CPU ratio', 'failed'],
      r.register.map((row) => [String(row.connections), rps(row.hop.rps), rps(row.bff.rps), ratio(row.bff.rps / row.hop.rps),
        ms(row.hop.p50), ms(row.bff.p50), ms(row.bff.p50 - row.hop.p50), ms(row.hop.p99), ms(row.bff.p99),
        `${us(row.hop.cpuUs[0])} + ${us(row.hop.cpuUs[1])}`, `${us(row.bff.cpuUs[0])} + ${us(row.bff.cpuUs[1])}`, `${ratio(cpuRatio(row.bff, row.hop))}x`, String(row.hop.failed + row.bff.failed)])), '')
    out.push(table(['connections', 'floor req/s', 'media-bff req/s', 'ratio to floor', 'floor p50', 'added p50', 'floor p99', 'CPU/req: emulator (floor)', 'failed'],
      r.register.map((row) => [String(row.connections), rps(row.floor.rps), rps(row.bff.rps), ratio(row.bff.rps / row.floor.rps),
        ms(row.floor.p50), ms(row.bff.p50 - row.floor.p50), ms(row.floor.p99), us(row.floor.cpuUs[0]), String(row.floor.failed)])), '')
    const { rounds, seconds } = r.plan.register
    const bffFirst = Math.ceil(rounds / 2)
    out.push(`Median of ${rounds} round(s). The side going first runs for ${seconds} s: media-bff in ${bffFirst} round(s), the hop in ${rounds - bffFirst} (they alternate, media-bff starting); the other then sends the same number of registrations, and the floor last; the emulator is emptied (and signed in to once) before each run. ` +
      'The hop (`bench/lib/bare-hop-child.ts`) receives the same request as media-bff, ignores the cookie, and sends the same url-encoded registration with undici and a fixed Bearer token, returning the JSON: the least any proxy does. ' +
      'The floor sends that registration straight to the emulator. Both use the bearer access token media-bff obtained at sign-in (read from `/__emulator/tokens`). ' +
      'CPU/req: user + system time of each server process per successful registration; with every process on the same cores, throughput is roughly cores / total CPU per request. ' +
      'The emulator\'s CPU per registration grows with the registrations it holds (see Analysis): where its CPU/req is well above ~0.3 ms, the references are inflated and the ratios flattered.', '')
  }
  if (r.registerOnRedis !== undefined || r.relayOnRedis !== undefined) {
    out.push('## On the Redis store: register and the relay beside the bare hop', '')
    const rowsOnRedis = [
      ...(r.registerOnRedis ?? []).map((row) => ({ what: `POST /uploads/register, ${row.connections} connections`, bff: row.bff, hop: row.hop })),
      ...(r.relayOnRedis === undefined ? [] : [{ what: `relayed GET /api/folders/0/contents, ${r.relayOnRedis.connections} connections`, bff: r.relayOnRedis.bff, hop: r.relayOnRedis.hop }])
    ]
    out.push(table(['call', 'hop req/s', 'media-bff req/s', 'ratio to hop', 'p50 added to hop', 'CPU/req: hop', 'CPU/req: media-bff', 'CPU ratio', 'failed'],
      rowsOnRedis.map(({ what, bff, hop }) => [what, rps(hop.rps), rps(bff.rps), ratio(bff.rps / hop.rps), ms(bff.p50 - hop.p50), us(hop.cpuUs[0]), us(bff.cpuUs[0]), `${ratio(cpuRatio(bff, hop))}x`, String(hop.failed + bff.failed)])), '')
    out.push('The same scenarios as above, run on a media-bff whose sessions, grants and rate-limit counters live in Redis (a local redis-server, the production path of any deployment of two replicas); the hop is the same bare Fastify+undici hop, which keeps nothing. Redis\'s own CPU is in neither figure.', '')
  }
  const tracing = r.tracing
  if (tracing !== undefined) {
    out.push('## Tracing: register and the relay with tracing off and on, beside the bare hop', '')
    const hop = tracing.rows.find((row) => row.variant === 'bare hop')
    const off = tracing.rows.find((row) => row.variant === 'off')
    const cells = (result: LoadResult, hopResult: LoadResult | undefined, offResult: LoadResult | undefined): string[] => [rps(result.rps), hopResult === undefined ? 'n/a' : ratio(result.rps / hopResult.rps), `${ms(result.p50)} / ${ms(result.p99)}`, `${us(result.cpuUs[0])} + ${us(result.cpuUs[1])}`, offResult === undefined ? 'n/a' : `${ratio(cpuRatio(result, offResult))}x`]
    out.push(table(['tracing', 'register req/s', 'ratio to hop', 'p50 / p99', 'CPU/req: server + emulator', 'CPU over off', 'relay req/s', 'ratio to hop', 'p50 / p99', 'CPU/req: server + emulator', 'CPU over off'],
      tracing.rows.map((row) => [row.variant, ...cells(row.register, hop?.register, off?.register), ...cells(row.relay, hop?.relay, off?.relay)])), '')
    out.push(`Median of ${r.plan.tracing.rounds} round(s) of ${r.plan.tracing.seconds} s each at ${tracing.connections} connections, the four in turn; registrations as in the register scenario (each run from an emptied emulator, the first of a round setting the count), the relayed listing of the relay scenario. ` +
      'Three media-bff instances in front of one emulator, alike but for the OTEL_* variables: off (no endpoint: no SDK loaded), on with OTEL_TRACES_SAMPLER=always_on, on with traceidratio 0.1. ' +
      `The traced ones export OTLP/HTTP protobuf with the SDK's default batching to a sink that discards (\`bench/lib/otlp-sink-child.ts\`; ${tracing.exports} exports received). Logging is off in every benchmark instance, so the trace ids in log lines are not in these figures.`, '')
  }
  const nodes = r.nodes
  if (nodes !== undefined) {
    out.push('## The same media-bff on two Nodes, each beside its bare references on the same Node', '')
    if (nodes.alone !== undefined) out.push(`Not measured: ${nodes.alone}.`, '')
    else {
      const cell = (result: LoadResult | undefined, reference: LoadResult | undefined): string => result === undefined || reference === undefined ? 'n/a' : `${ratio(result.rps / reference.rps)} (${rps(result.rps)}, ${us(result.cpuUs[0])}/req)`
      const of = (tracingResult: TracingResult, variant: string): { register: LoadResult, relay: LoadResult } | undefined => tracingResult.rows.find((row) => row.variant === variant)
      out.push(table(['Node', 'register: off / hop', 'register: on (every trace) / hop', 'relay: off / hop', 'relay: on (every trace) / hop', 'tracing CPU/req over off: register, relay', 'GET /auth/session / bare route'],
        nodes.rows.map((row) => {
          const [hop, off, on] = [of(row.tracing, 'bare hop'), of(row.tracing, 'off'), of(row.tracing, 'on, every trace')]
          const cpuOver = on === undefined || off === undefined ? 'n/a' : `${ratio(cpuRatio(on.register, off.register))}x, ${ratio(cpuRatio(on.relay, off.relay))}x`
          return [row.node, cell(off?.register, hop?.register), cell(on?.register, hop?.register), cell(off?.relay, hop?.relay), cell(on?.relay, hop?.relay), cpuOver, cell(row.session.bff, row.session.bare)]
        })), '')
      out.push(`Each cell: the ratio of requests per second to the reference on the same Node (the bare Fastify+undici hop for register and the relay, a bare route for the session), then media-bff's requests per second and CPU per request. Both Nodes run the same build, the tracing scenario's runs and the session scenario's, the Nodes taking turns (24, 20, 20, 24), the median of each Node's turns; the emulator, the load generator and the OTLP sink stay on ${process.version}.`, '')
    }
  }
  const relay = r.relay
  if (relay !== undefined) {
    out.push('## GET /api/folders/0/contents: media-bff\'s relay vs the bare hop (the reference) and the emulator directly', '')
    const line = (who: string, result: LoadResult, cpu: string): string[] =>
      [who, rps(result.rps), ratio(result.rps / relay.hop.rps), `${ms(result.p50)} / ${ms(result.p99)}`, ms(result.p50 - relay.hop.p50), cpu, String(result.failed)]
    out.push(table(['server', 'req/s', 'ratio to hop', 'p50 / p99', 'p50 added to hop', 'CPU/req: server + emulator', 'failed'], [
      line('media-bff', relay.bff, `${us(relay.bff.cpuUs[0])} + ${us(relay.bff.cpuUs[1])}`),
      line('bare hop', relay.hop, `${us(relay.hop.cpuUs[0])} + ${us(relay.hop.cpuUs[1])}`),
      line('emulator directly', relay.direct, us(relay.direct.cpuUs[0]))
    ]), '')
    out.push(`Median of ${r.plan.relay.rounds} round(s) of ${r.plan.relay.seconds} s each at ${relay.connections} connections, the three in turn. The benchmark puts ${relay.files} files in alice's home folder (beside any folders the emulator seeds): ` +
      `the emulator's answer is ${bytes(relay.directBytes)}, media-bff's ${bytes(relay.bffBytes)} (links rewritten to its own /api/). ` +
      'media-bff reads the session cookie, the grant and its token, checks the call against its allowlist and streams the answer through a JSON link rewriter; the hop sends the same GET with a fixed Bearer token and streams the answer back untouched.', '')
    const hostile = relay.hostile
    const delay = (d: LoopDelay): string => `${ms(d.p50)} / ${ms(d.p99)} / ${ms(d.max)}`
    out.push('### The relay under a hostile answer: media-bff\'s event loop', '')
    out.push(table(['answer', 'connections', 'req/s', 'MB/s', 'p50 / p99', 'CPU/req: media-bff', 'event-loop delay p50 / p99 / max', 'failed'], [
      [`plain listing (${bytes(relay.bffBytes)}, the runs above)`, String(relay.connections), rps(relay.bff.rps), (relay.bff.rps * relay.bffBytes / 1e6).toFixed(1), `${ms(relay.bff.p50)} / ${ms(relay.bff.p99)}`, us(relay.bff.cpuUs[0]), delay(relay.bffLoopDelay), String(relay.bff.failed)],
      [`hostile, ${(hostile.bytes / 1_048_576).toFixed(2)} MiB, ${hostile.strings} strings with the tenant's host`, String(hostile.connections), rps(hostile.bff.rps), (hostile.bff.rps * hostile.bytes / 1e6).toFixed(1), `${ms(hostile.bff.p50)} / ${ms(hostile.bff.p99)}`, us(hostile.bff.cpuUs[0]), delay(hostile.loopDelay), String(hostile.bff.failed)]
    ]), '')
    out.push(`A hostile tenant (\`bench/lib/hostile-tenant-child.ts\`) answers every library call with one JSON body just under the relay's 4 MiB cap, made of strings that carry its host: links that walk out of /api/ (\`https://<host>/api/../x\`, \`HTTPS://<host>/api/%2e%2e/x\`), the host followed by text, and sentences that mention it; a media-bff of its own relays it for ${r.plan.relay.hostileSeconds} s at ${hostile.connections} connections. ` +
      'Event-loop delay: perf_hooks.monitorEventLoopDelay in media-bff\'s process during the measured runs (the plain listing\'s: the median round by p99), as the lateness of a 10 ms timer: how long other requests of that instance wait behind the relay\'s work.', '')
  }
  if (r.sessions.length > 0) {
    out.push('## GET /auth/session (signed in) vs a bare Fastify route returning the same JSON', '')
    out.push(table(['store', 'connections', 'bare req/s', 'media-bff req/s', 'ratio', 'bare p50 / p99', 'media-bff p50 / p99', 'CPU/req: bare', 'CPU/req: media-bff', 'failed'],
      r.sessions.map((row) => [row.store, String(row.connections), rps(row.bare.rps), rps(row.bff.rps), ratio(row.bff.rps / row.bare.rps),
        `${ms(row.bare.p50)} / ${ms(row.bare.p99)}`, `${ms(row.bff.p50)} / ${ms(row.bff.p99)}`, us(row.bare.cpuUs[0]), us(row.bff.cpuUs[0]), String(row.bare.failed + row.bff.failed)])), '')
    out.push('CPU/req: user + system time of the server process per successful request (Redis\'s own CPU is not in it).', '')
  }
  if (r.authCheck !== undefined) {
    const row = r.authCheck
    out.push('## GET /auth/check (signed in) vs a bare Fastify route, the answer kept per session and not', '')
    out.push(table(['store', 'connections', 'side', 'req/s', 'ratio to bare', 'p50 / p99', 'CPU/req', 'failed'],
      ([['bare route', row.bare], ['media-bff, answer kept (AUTH_CHECK_CACHE=5s)', row.kept], ['media-bff, not kept (AUTH_CHECK_CACHE=0)', row.unkept]] as const).map(([side, run]) =>
        [row.store, String(row.connections), side, rps(run.rps), ratio(run.rps / row.bare.rps), `${ms(run.p50)} / ${ms(run.p99)}`, us(run.cpuUs[0]), String(run.failed)])), '')
    out.push('Not kept, every check reads the session (and its grant) from Redis and signs a new ES256 assertion; kept, it reads and signs once per session every few seconds. CPU/req: the server process only (Redis\'s own is not in it).', '')
  }
  if (r.stampedes.length > 0) {
    out.push('## Refresh stampede (expired access token, all requests at once)', '')
    out.push(table(['instances', 'store', 'requests', 'refreshes at the emulator', 'refresh-token reuse', 'succeeded', 'p50', 'p99', 'max'],
      r.stampedes.map((s) => [String(s.instances), s.store, String(s.concurrency), String(s.refreshes), String(s.reuseDetections), `${s.succeeded}/${s.concurrency}`, ms(s.p50), ms(s.p99), ms(s.max)])), '')
    out.push('Requests are POST /uploads/register (each needs the access token); with two instances they alternate between them, the cookie copied from the first. Latency counts from the common start.', '')
  }
  if (r.idleMemory !== undefined || r.redisMemory !== undefined) {
    out.push('## Memory per session', '')
    const rows: string[][] = []
    const idle = r.idleMemory
    if (idle !== undefined) {
      rows.push(['in-memory store: RSS growth per idle session', bytes(idle.rssPerSession), `median growth per batch over the second half, after GC (end to end: ${bytes(idle.rssOverall)}); ${idle.sessions} sign-ins in ${idle.signInSeconds.toFixed(1)} s (${Math.round(idle.sessions / idle.signInSeconds)}/s)`])
      rows.push(['in-memory store: heap growth per idle session', bytes(idle.heapPerSession), `heapUsed, same method (end to end: ${bytes(idle.heapOverall)})`])
    }
    const red = r.redisMemory
    if (red !== undefined) {
      rows.push(['Redis: `sess:` key', bytes(red.sessionKeyBytes), `MEMORY USAGE, mean of ${red.sessions}+ keys; value ${bytes(red.sessionValueBytes)}`])
      rows.push(['Redis: `grant:` key', bytes(red.grantKeyBytes), `MEMORY USAGE; value ${bytes(red.grantValueBytes)} (sealed)`])
      rows.push(['Redis: a person\'s session index, per session', bytes(red.indexBytesPerSession), 'MEMORY USAGE of the `people:` hashes over the sessions they hold'])
      rows.push(['Redis: used_memory growth per sign-in', bytes(red.usedMemoryPerSignIn), 'keys plus the server\'s own bookkeeping'])
    }
    out.push(table(['measure', 'bytes', 'how'], rows), '')
  }
  const live = r.liveChannels
  if (live !== undefined) {
    out.push('## Live channels (GET /events) held by one instance', '')
    out.push(table(['measure', 'value', 'how'], [
      ['channels open', String(live.channels), `${live.sessions} sessions with 8 tabs each, every channel its own connection; opened one after another in ${live.openSeconds.toFixed(1)} s (${Math.round(live.channels / live.openSeconds)}/s)`],
      ['RSS per open channel', bytes(live.rssPerChannel), 'growth of the media-bff process, gc\'d readings before and after opening them all'],
      ['heap per open channel', bytes(live.heapPerChannel), 'heapUsed, same readings'],
      ['bare Fastify: RSS / heap per open channel', `${bytes(live.bareRssPerChannel)} / ${bytes(live.bareHeapPerChannel)}`, 'a bare Fastify server holding as many channels, opened by the same requests, answered with the same head and first event (lib/bff-child.ts): the connection, request and answer any server keeps'],
      ['media-bff\'s own heap per open channel', bytes(live.heapPerChannel - live.bareHeapPerChannel), 'the difference: the hub\'s entry, the request and session objects media-bff keeps'],
      ['CPU while idle, no channel', `${live.idleCpuMsPerSecond.toFixed(1)} ms/s`, 'media-bff\'s user + system CPU per second of wall time over 5 s'],
      ['CPU while idle, all channels open', `${live.openCpuMsPerSecond.toFixed(1)} ms/s`, `the same, with a heartbeat to every channel every ${live.heartbeatMs / 1000} s`],
      ['finish to the event in each of 8 tabs', `${ms(live.deliveryMsMedian)} median, ${ms(live.deliveryMsMax)} max`, 'from the finish\'s answer to the event\'s arrival in each tab of the uploader, with every other channel open']
    ]), '')
  }
  const hooks = r.webhooks
  if (hooks !== undefined) {
    out.push('## Webhooks', '')
    out.push(table(['measure', 'value', 'how'], [
      ['accepted per second, one instance, in memory', rps(hooks.acceptedPerSecond.memory), `signed webhooks, each a new id, at ${hooks.connections} connections for ${hooks.seconds} s: verified, deduplicated, the follow-up queued before the 202 and then done in the same process`],
      ['accepted per second, one instance, on Redis', rps(hooks.acceptedPerSecond.redis), 'the same, the follow-up queued in the Redis stream (XADD) and worked by both instances'],
      ['webhook to page, another instance', `${ms(hooks.latency.p50)} p50, ${ms(hooks.latency.p99)} p99`, `${hooks.latency.samples} webhooks sent to instance A, each about a file changed at the service, to the event on the person's page held by instance B`],
      ['webhook to page, the instance that took it killed', `${ms(hooks.killed.median)} median, ${ms(hooks.killed.max)} max`, `${hooks.killed.samples} times: the service slow to answer, the instance holding the follow-up killed (SIGKILL) after its 202; the other takes it over after WEBHOOK_TAKEOVER_AFTER (default ${hooks.killed.takeoverAfterMs / 1000} s)`]
    ]), '')
  }
  const sizes = r.storeSizes
  if (sizes !== undefined) {
    out.push(`## Store families at their bounds (in memory, MEMORY_MAX_SESSIONS=${sizes.memory.maxSessions})`, '')
    out.push(table(['family', 'unit', 'units', 'entries', 'heap', 'per unit'], sizes.memory.rows.map((row) => [
      row.family, row.unit, String(row.units), String(row.entries), `${(row.bytes / 1_048_576).toFixed(1)} MB`, bytes(row.bytes / row.units)
    ])), '')
    out.push('## Redis bytes per unit (MEMORY USAGE)', '')
    out.push(table(['unit', 'bytes'], sizes.redis.rows.map((row) => [row.unit, bytes(row.bytes)])), '')
    out.push(`Averages over ${sizes.redis.units} units of each kind, written by media-bff's own modules.`, '')
  }
  if (r.redisTrips !== undefined) {
    out.push('## Redis round trips per request (Redis store)', '')
    out.push(table(['call', 'requests', 'round trips per request', 'commands run in scripts', 'by command'], r.redisTrips.map((row) => [
      row.call, String(row.requests), row.trips.toFixed(2), row.inScripts.toFixed(2),
      row.perRequest.map((c) => `${c.command} ${c.calls.toFixed(2)}`).join(', ')
    ])), '')
    out.push(`Every command Redis received (MONITOR) while ${r.plan.redisTripRequests} requests ran at ${TRIP_CONNECTIONS} connections after a warm-up, divided by the successful requests. ` +
      'Each command media-bff sent counts as one round trip of its request: the commands of one request depend on each other (the grant id is in the session) and go one after another, while ioredis auto-pipelining batches commands of different requests issued in the same tick into one write, which MONITOR cannot show; commands a Lua script runs inside Redis, such as the rate limit\'s, are marked (lua) and cost no trip.', '')
  }
  if (r.cpu !== undefined) {
    out.push('## CPU time per 1 000 registrations', '')
    out.push(table(['process', 'user', 'system', 'total'], [
      ['media-bff', ms(r.cpu.bffUserMs), ms(r.cpu.bffSystemMs), ms(r.cpu.bffUserMs + r.cpu.bffSystemMs)],
      ['emulator (the floor\'s own cost)', '', '', ms(r.cpu.emulatorMs)]
    ]), '')
    out.push(`process.cpuUsage() of each server's own process around ${r.cpu.registrations} registrations at ${r.cpu.connections} connections (the emulator emptied every 1 000); the load generator's CPU is in neither.`, '')
  }
  if (r.profiles.length > 0) {
    out.push('## Profiles (top self time in media-bff during the measured window, share of busy time)', '')
    for (const profile of r.profiles) {
      out.push(`${profile.name}:`, '')
      out.push(table(['share', 'function', 'where'], profile.top.map((t) => [`${(t.share * 100).toFixed(1)}%`, `\`${t.name}\``, t.where])), '')
    }
  }
  if (analysis !== undefined) out.push('## Analysis', '', analysis.trim(), '')
  return out.join('\n')
}
