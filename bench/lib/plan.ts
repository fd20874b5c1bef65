// How much each scenario measures: the full run (a few minutes) or --quick (under a minute:
// shorter runs, one round, smaller N, no 1 000-request stampede, no 10 000 sessions).
export interface Plan {
  quick: boolean
  /** Write CPU profiles of media-bff's measured windows to bench/profiles/. */
  profile: boolean
  register: { connections: number[], seconds: number, rounds: number }
  session: { connections: number, seconds: number, rounds: number }
  stampede: number[]
  /** Idle in-memory sessions signed in for the RSS figure. */
  idleSessions: number
  /** Sessions signed in on Redis for the bytes-per-key figures. */
  redisSessions: number
  cpuRegistrations: number
}

export function planFrom (argv: string[]): Plan {
  const quick = argv.includes('--quick')
  const profile = argv.includes('--profile')
  if (quick) {
    return {
      quick,
      profile,
      register: { connections: [1, 10, 100], seconds: 1.5, rounds: 1 },
      session: { connections: 10, seconds: 1.5, rounds: 1 },
      stampede: [100],
      idleSessions: 500,
      redisSessions: 50,
      cpuRegistrations: 1000
    }
  }
  return {
    quick,
    profile,
    // Short runs, more rounds: the emulator's cost per registration grows with the registrations
    // it holds (see analysis.md), so no run lets it hold more than a couple of thousand.
    register: { connections: [1, 10, 100], seconds: 2, rounds: 3 },
    session: { connections: 10, seconds: 5, rounds: 2 },
    stampede: [100, 1000],
    idleSessions: 10_000,
    redisSessions: 200,
    cpuRegistrations: 5000
  }
}
