// What a soak measured, what it must satisfy, and its markdown summary (for docs/guide/operate.md,
// "Reliability", and `npm run soak`).

export interface ReplicaMemory {
  name: string
  /** KiB: right after start, after the sign-ins, highest during traffic, at the end. */
  startKb: number
  afterSignInKb: number
  peakKb: number
  endKb: number
  aliveAtEnd: boolean
}

export interface SoakReport {
  sessions: number
  replicas: number
  accessTokenTtlS: number
  signInMs: number
  trafficMs: number
  requests: { total: number, byRoute: Record<string, number>, byReplica: number[], perSecond: number }
  /** Answers by status; 0 is no answer, -1 a 200 that said "signed out". */
  statuses: Record<string, number>
  errors: number
  errorSamples: string[]
  latencyMs: { p50: number, p95: number, p99: number, max: number }
  refreshes: {
    /** Successful refresh_token grants at the emulator. */
    emulator: number
    /** Sum over replicas of media_bff_token_refreshes_total by outcome. */
    replicas: Record<string, number>
    lowerBound: number
    upperBound: number
    estimate: number
    reuseDetections: number
    /** Grants (token families) seen at the emulator, and the most refreshes any one had. */
    grants: number
    maxPerGrant: number
    /** The highest upper bound of any one session. */
    maxUpperBoundPerSession: number
  }
  signedInAtEnd: number
  memory: ReplicaMemory[]
  logs: { lines: number, secretsSearched: number, secretKinds: Record<string, number>, leaks: string[] }
}

/** Everything the soak must satisfy; empty when it held. */
export function soakProblems (report: SoakReport): string[] {
  const problems: string[] = []
  const { refreshes: r } = report
  if (report.errors > 0) problems.push(`${report.errors} of ${report.requests.total} requests failed: ${JSON.stringify(report.statuses)}; e.g. ${report.errorSamples.join(' | ')}`)
  if (report.signedInAtEnd !== report.sessions) problems.push(`only ${report.signedInAtEnd} of ${report.sessions} sessions still signed in at the end`)
  if (r.reuseDetections > 0) problems.push(`the emulator saw ${r.reuseDetections} refresh token(s) used twice`)
  if (r.emulator !== (r.replicas.refreshed ?? 0)) problems.push(`the emulator counted ${r.emulator} refreshes, the replicas ${r.replicas.refreshed ?? 0}`)
  if (r.emulator < r.lowerBound) problems.push(`${r.emulator} refreshes, fewer than the ${r.lowerBound} the successful calls needed`)
  if (r.emulator > r.upperBound) problems.push(`${r.emulator} refreshes, more than the ${r.upperBound} possible without a duplicate`)
  if (r.grants !== report.sessions) problems.push(`${r.grants} grants at the emulator for ${report.sessions} sign-ins`)
  if (r.maxPerGrant > r.maxUpperBoundPerSession) problems.push(`a grant was refreshed ${r.maxPerGrant} times; no session could need more than ${r.maxUpperBoundPerSession}`)
  // Only a run that sees expiries tests the refresh path.
  if (r.emulator < 2 * report.sessions) problems.push(`only ${r.emulator} refreshes for ${report.sessions} sessions: run longer or with a shorter token lifetime`)
  for (const memory of report.memory) if (!memory.aliveAtEnd) problems.push(`${memory.name} exited during the soak`)
  if (report.logs.leaks.length > 0) problems.push(`secrets in the logs: ${report.logs.leaks.join(', ')}`)
  return problems
}

const mb = (kb: number): string => `${(kb / 1024).toFixed(1)} MB`

export function soakMarkdown (report: SoakReport): string {
  const { refreshes: r } = report
  const statuses = Object.entries(report.statuses).map(([status, n]) => `${status}: ${n}`).join(', ')
  const problems = soakProblems(report)
  return [
    `### Soak: ${report.sessions} sessions on ${report.replicas} replicas over one Redis, ${(report.trafficMs / 1000).toFixed(0)} s`,
    '',
    '| | |',
    '|---|---|',
    `| sign-in of all sessions | ${(report.signInMs / 1000).toFixed(1)} s |`,
    `| requests | ${report.requests.total} (${report.requests.perSecond.toFixed(0)}/s): ${Object.entries(report.requests.byRoute).map(([route, n]) => `${route} ${n}`).join(', ')}; per replica ${report.requests.byReplica.join(' / ')} |`,
    `| answers | ${statuses} |`,
    `| errors | ${report.errors} |`,
    `| latency | p50 ${report.latencyMs.p50} ms, p95 ${report.latencyMs.p95} ms, p99 ${report.latencyMs.p99} ms, max ${report.latencyMs.max} ms |`,
    `| access token lifetime | ${report.accessTokenTtlS} s |`,
    `| refreshes at the emulator | ${r.emulator} (bounds ${r.lowerBound}–${r.upperBound}, policy estimate ${r.estimate}); replicas: ${JSON.stringify(r.replicas)} |`,
    `| refresh tokens reused | ${r.reuseDetections} |`,
    `| grants / most refreshes of one grant | ${r.grants} / ${r.maxPerGrant} (a session's bound at most ${r.maxUpperBoundPerSession}) |`,
    `| sessions signed in at the end | ${report.signedInAtEnd} of ${report.sessions} |`,
    ...report.memory.map((m) => `| RSS ${m.name} | start ${mb(m.startKb)}, after sign-in ${mb(m.afterSignInKb)}, peak ${mb(m.peakKb)}, end ${mb(m.endKb)} |`),
    `| log search | ${report.logs.lines} lines, ${report.logs.secretsSearched} secrets (${Object.entries(report.logs.secretKinds).map(([kind, n]) => `${n} ${kind}`).join(', ')}): ${report.logs.leaks.length === 0 ? 'none found' : report.logs.leaks.join(', ')} |`,
    '',
    problems.length === 0 ? 'Held: every check passed.' : `FAILED:\n${problems.map((p) => `- ${p}`).join('\n')}`
  ].join('\n')
}
