// The results as markdown: the targets with PASS/MISS first, then the figures behind them, the
// machine they were taken on, and the analysis kept in bench/analysis.md.
import { cpus, loadavg, platform, release } from 'node:os'
import type { Plan } from './plan.js'
import type { RegisterRow } from '../scenarios/register.js'
import type { SessionRow } from '../scenarios/session.js'
import type { StampedeResult } from '../scenarios/stampede.js'
import type { IdleMemoryResult, RedisMemoryResult } from '../scenarios/memory.js'
import type { CpuResult } from '../scenarios/cpu.js'
import type { SelfTime } from './profile-top.js'

export interface Results {
  plan: Plan
  startedAt: Date
  seconds: number
  loadBefore: number[]
  register?: RegisterRow[]
  sessions: SessionRow[]
  stampedes: StampedeResult[]
  idleMemory?: IdleMemoryResult
  redisMemory?: RedisMemoryResult
  cpu?: CpuResult
  profiles: Array<{ name: string, file: string, top: SelfTime[] }>
}

const TARGET_CONNECTIONS = 10
const ms = (value: number): string => Number.isFinite(value) ? `${value.toFixed(value < 10 ? 2 : 1)} ms` : 'n/a'
const rps = (value: number): string => `${Math.round(value)}/s`
const ratio = (value: number): string => Number.isFinite(value) ? value.toFixed(2) : 'n/a'
const bytes = (value: number): string => `${Math.round(value)} B`
const us = (value: number | undefined): string => value !== undefined && Number.isFinite(value) ? `${Math.round(value)} µs` : 'n/a'
const verdict = (ok: boolean): string => ok ? 'PASS' : '**MISS**'

function targetRows (r: Results): string[][] {
  const rows: string[][] = []
  const reg = r.register?.find((row) => row.connections === TARGET_CONNECTIONS)
  if (reg !== undefined) {
    const share = reg.bff.rps / reg.floor.rps
    const added = reg.bff.p50 - reg.floor.p50
    rows.push(['register throughput vs floor, 10 connections', '>= 0.85', `${ratio(share)} (${rps(reg.bff.rps)} vs ${rps(reg.floor.rps)})`, verdict(share >= 0.85)])
    rows.push(['register p50 added to floor, 10 connections', '<= 1 ms', `${ms(added)} (${ms(reg.bff.p50)} vs ${ms(reg.floor.p50)})`, verdict(added <= 1)])
  }
  for (const row of r.sessions) {
    const need = row.store === 'memory' ? 0.7 : 0.5
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

  if (r.register !== undefined) {
    out.push('## POST /uploads/register: media-bff vs the emulator directly (floor)', '')
    out.push(table(['connections', 'floor req/s', 'media-bff req/s', 'ratio', 'floor p50', 'media-bff p50', 'added p50', 'floor p99', 'media-bff p99', 'CPU/req: emulator (floor)', 'CPU/req: media-bff + emulator', 'failed'],
      r.register.map((row) => [String(row.connections), rps(row.floor.rps), rps(row.bff.rps), ratio(row.bff.rps / row.floor.rps),
        ms(row.floor.p50), ms(row.bff.p50), ms(row.bff.p50 - row.floor.p50), ms(row.floor.p99), ms(row.bff.p99),
        us(row.floor.cpuUs[0]), `${us(row.bff.cpuUs[0])} + ${us(row.bff.cpuUs[1])}`, String(row.floor.failed + row.bff.failed)])), '')
    out.push(`Median of ${r.plan.register.rounds} round(s); media-bff runs ${r.plan.register.seconds} s, the floor then sends the same number of registrations; the emulator is emptied before each run. ` +
      'The floor uses the bearer access token media-bff obtained at sign-in (read from `/__emulator/tokens`). ' +
      'CPU/req: user + system time of each server process per successful registration; with every process on the same cores, throughput is roughly cores / total CPU per request. ' +
      'The emulator\'s CPU per registration grows with the registrations it holds (see Analysis): where its CPU/req is well above ~0.3 ms, the floor is inflated and the ratio flattered.', '')
  }
  if (r.sessions.length > 0) {
    out.push('## GET /auth/session (signed in) vs a bare Fastify route returning the same JSON', '')
    out.push(table(['store', 'connections', 'bare req/s', 'media-bff req/s', 'ratio', 'bare p50 / p99', 'media-bff p50 / p99', 'CPU/req: bare', 'CPU/req: media-bff', 'failed'],
      r.sessions.map((row) => [row.store, String(row.connections), rps(row.bare.rps), rps(row.bff.rps), ratio(row.bff.rps / row.bare.rps),
        `${ms(row.bare.p50)} / ${ms(row.bare.p99)}`, `${ms(row.bff.p50)} / ${ms(row.bff.p99)}`, us(row.bare.cpuUs[0]), us(row.bff.cpuUs[0]), String(row.bare.failed + row.bff.failed)])), '')
    out.push('CPU/req: user + system time of the server process per successful request (Redis\'s own CPU is not in it).', '')
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
      rows.push(['Redis: used_memory growth per sign-in', bytes(red.usedMemoryPerSignIn), 'keys plus the server\'s own bookkeeping'])
    }
    out.push(table(['measure', 'bytes', 'how'], rows), '')
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
