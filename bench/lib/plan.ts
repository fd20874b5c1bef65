// How much each scenario measures: the full run (a few minutes) or --quick (under a minute:
// shorter runs, one round, smaller N, no 1 000-request stampede, no 10 000 sessions), and which
// scenarios run (--only register,relay: those alone; the report then is printed, not written).

/** Scenario names for --only, in the order run.ts runs them. */
export const SCENARIOS = ['hop', 'session', 'auth-check', 'register', 'relay', 'tracing', 'nodes', 'cpu', 'redis-memory', 'redis-trips', 'stampede', 'idle-memory', 'live-channels', 'webhooks', 'store-sizes'] as const
export type ScenarioName = typeof SCENARIOS[number]

export interface Plan {
  quick: boolean
  /** The scenarios to run: all of them unless --only names some. */
  only: ReadonlySet<ScenarioName>
  /** True when --only left some scenario out: results.md is then left as it is. */
  partial: boolean
  /** Write CPU profiles of media-bff's measured windows to bench/profiles/. */
  profile: boolean
  /** --compare-node <path>: the Node the nodes scenario compares with (default: the machine's own). */
  compareNode: string | undefined
  register: { connections: number[], seconds: number, rounds: number }
  /**
   * Register and the relayed listing beside the bare hop, both in front of the cheap stub, on each
   * store and with production's request logs: `rounds` of `seconds` at `connections`.
   */
  hop: { connections: number, seconds: number, rounds: number }
  session: { connections: number, seconds: number, rounds: number }
  stampede: number[]
  /** Idle in-memory sessions signed in for the RSS figure. */
  idleSessions: number
  /** Sessions signed in on Redis for the bytes-per-key figures. */
  redisSessions: number
  cpuRegistrations: number
  /**
   * GET /api/folders/0/contents: media-bff, the bare hop and the emulator directly; then a hostile
   * tenant's 4 MiB answer through media-bff at `hostileConnections` for `hostileSeconds`.
   */
  relay: { connections: number, seconds: number, rounds: number, files: number, hostileConnections: number, hostileSeconds: number }
  /**
   * Register and the relay through media-bff with tracing off, on (every trace) and on (1 in 10),
   * beside the bare hop: `rounds` of `seconds` each at `connections`.
   */
  tracing: { connections: number, seconds: number, rounds: number }
  /** Requests per kind whose Redis commands are counted (INFO commandstats). */
  redisTripRequests: number
  /** Live channels (GET /events) one instance is made to hold open. */
  liveChannels: number
  /**
   * Webhooks: the accept rate at `connections` for `seconds` (memory and Redis), webhook-to-page
   * `samples` across two instances, and `kills` of the instance that took a follow-up.
   */
  webhooks: { connections: number, seconds: number, samples: number, kills: number }
  /** Store families filled to their bounds at this MEMORY_MAX_SESSIONS; `redisUnits` of each kind on Redis. */
  storeSizes: { maxSessions: number, redisUnits: number }
}

/** --only a,b or --only=a,b; unknown names are an error, so a typo does not run nothing. */
function onlyFrom (argv: string[]): ScenarioName[] {
  const names: string[] = []
  argv.forEach((arg, i) => {
    if (arg === '--only') names.push(...(argv[i + 1] ?? '').split(','))
    else if (arg.startsWith('--only=')) names.push(...arg.slice('--only='.length).split(','))
  })
  const wanted = names.map((name) => name.trim()).filter((name) => name !== '')
  for (const name of wanted) {
    if (!(SCENARIOS as readonly string[]).includes(name)) throw new Error(`--only: unknown scenario ${name}; known: ${SCENARIOS.join(', ')}`)
  }
  return wanted as ScenarioName[]
}

export function planFrom (argv: string[]): Plan {
  const quick = argv.includes('--quick')
  const profile = argv.includes('--profile')
  const named = onlyFrom(argv)
  const only = new Set<ScenarioName>(named.length === 0 ? SCENARIOS : named)
  const partial = only.size < SCENARIOS.length
  const at = argv.indexOf('--compare-node')
  const compareNode = at < 0 ? undefined : argv[at + 1]
  if (quick) {
    return {
      quick,
      only,
      partial,
      profile,
      compareNode,
      register: { connections: [1, 10, 100], seconds: 1.5, rounds: 1 },
      hop: { connections: 10, seconds: 1.5, rounds: 1 },
      session: { connections: 10, seconds: 1.5, rounds: 1 },
      stampede: [100],
      idleSessions: 500,
      redisSessions: 50,
      cpuRegistrations: 1000,
      relay: { connections: 10, seconds: 1.5, rounds: 1, files: 20, hostileConnections: 4, hostileSeconds: 3 },
      tracing: { connections: 10, seconds: 1.5, rounds: 1 },
      redisTripRequests: 200,
      liveChannels: 800,
      webhooks: { connections: 10, seconds: 1.5, samples: 30, kills: 1 },
      storeSizes: { maxSessions: 5_000, redisUnits: 200 }
    }
  }
  return {
    quick,
    only,
    partial,
    profile,
    compareNode,
    // Short runs, more rounds: the emulator's cost per registration grows with the registrations
    // it holds (see analysis.md), so no run lets it hold more than a couple of thousand.
    register: { connections: [1, 10, 100], seconds: 2, rounds: 3 },
    hop: { connections: 10, seconds: 3, rounds: 3 },
    session: { connections: 10, seconds: 5, rounds: 2 },
    stampede: [100, 1000],
    idleSessions: 10_000,
    redisSessions: 200,
    cpuRegistrations: 5000,
    relay: { connections: 10, seconds: 3, rounds: 3, files: 20, hostileConnections: 4, hostileSeconds: 5 },
    tracing: { connections: 10, seconds: 2, rounds: 3 },
    redisTripRequests: 1000,
    liveChannels: 4000,
    webhooks: { connections: 10, seconds: 5, samples: 200, kills: 3 },
    storeSizes: { maxSessions: 50_000, redisUnits: 1000 }
  }
}
