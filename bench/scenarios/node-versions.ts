// 13. The same media-bff on two Nodes in one run: the project's own (Node 24, what the image and
// the npm scripts run) and another (the machine's own Node, found on the PATH outside
// node_modules, or the one --compare-node names): register and the relayed listing with tracing
// off and on beside a bare hop, and GET /auth/session beside a bare route, each reference on the
// same Node as the media-bff it is compared with (the emulator, the load generator and the OTLP
// sink stay on the project's Node). The tracing and session scenarios run as they are, on a stack
// of each Node's, the Nodes taking turns; each figure is the median of a Node's turns.
import { execFileSync } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'
import { startBffStack, type ServerFlags } from '../lib/stack.js'
import type { Plan } from '../lib/plan.js'
import { sessionScenario, type SessionRow } from './session.js'
import { tracingScenario, type TracingResult } from './tracing.js'
import { medianResult } from './register.js'

export interface NodeVersionRow {
  /** The Node's own version string (v24.21.0). */
  node: string
  tracing: TracingResult
  session: SessionRow
}

export interface NodeVersionsResult {
  rows: NodeVersionRow[]
  /** Why there is no second Node, when there is none. */
  alone?: string
}

/** Each Node's turn comes this many times, the two alternating, so drift in the machine's load hits both alike. */
const TURNS = 2

export async function nodeVersionsScenario (plan: Plan, compareNode: string | undefined): Promise<NodeVersionsResult> {
  const other = compareNode ?? machineNode()
  if (other === undefined) return { rows: [], alone: 'no Node other than the project\'s was found on the PATH (give one with --compare-node <path>)' }
  const nodes = [{ execPath: process.execPath, version: process.version }, { execPath: other, version: versionOf(other) }]
  const stacks = await Promise.all(nodes.map(async ({ execPath }) => await startBffStack({}, {}, { execPath })))
  try {
    const turns = nodes.map(() => ({ tracing: [] as TracingResult[], session: [] as SessionRow[] }))
    for (let turn = 0; turn < TURNS * nodes.length; turn++) {
      // 24, 20, 20, 24: each starts a pair once, and neither always goes first.
      const index = [0, 1, 1, 0][turn % 4] ?? 0
      const flags: ServerFlags = { execPath: nodes[index]?.execPath ?? process.execPath }
      const stack = stacks[index]
      const mine = turns[index]
      if (stack === undefined || mine === undefined) continue
      mine.tracing.push(await tracingScenario(stack, plan, flags))
      mine.session.push(await sessionScenario(stack, 'memory', plan, flags))
    }
    return {
      rows: nodes.map(({ version }, index) => {
        const mine = turns[index] ?? { tracing: [], session: [] }
        return { node: version, tracing: medianTracing(mine.tracing), session: medianSession(mine.session) }
      })
    }
  } finally {
    for (const stack of stacks) await stack.stop()
  }
}

function medianTracing (results: TracingResult[]): TracingResult {
  const first = results[0] as TracingResult
  return {
    connections: first.connections,
    exports: results.reduce((sum, result) => sum + result.exports, 0),
    rows: first.rows.map((row) => {
      const same = results.map((result) => result.rows.find((each) => each.variant === row.variant) ?? row)
      return { variant: row.variant, register: medianResult(same.map((each) => each.register)), relay: medianResult(same.map((each) => each.relay)) }
    })
  }
}

function medianSession (rows: SessionRow[]): SessionRow {
  const first = rows[0] as SessionRow
  return { ...first, bare: medianResult(rows.map((row) => row.bare)), bff: medianResult(rows.map((row) => row.bff)) }
}

/** The first `node` on the PATH outside any node_modules whose major differs from this one's. */
function machineNode (): string | undefined {
  const major = (version: string): string => version.replace(/^v/, '').split('.')[0] ?? ''
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '' || dir.split(/[\\/]/).includes('node_modules')) continue
    const candidate = join(dir, 'node')
    try {
      accessSync(candidate, constants.X_OK)
    } catch {
      continue
    }
    if (major(versionOf(candidate)) !== major(process.version)) return candidate
  }
  return undefined
}

function versionOf (node: string): string {
  return execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()
}
