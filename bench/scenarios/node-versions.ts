// 13. The same media-bff on two Nodes in one run: the project's own (Node 24, what the image and
// the npm scripts run) and another (the machine's own Node, found on the PATH outside
// node_modules, or the one --compare-node names): register and the relayed listing with tracing
// off and on beside a bare hop, and GET /auth/session beside a bare route, each reference on the
// same Node as the media-bff it is compared with (the emulator, the load generator and the OTLP
// sink stay on the project's Node). The tracing and session scenarios run as they are, once per
// Node, on a stack of that Node's.
import { execFileSync } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'
import { startBffStack, type ServerFlags } from '../lib/stack.js'
import type { Plan } from '../lib/plan.js'
import { sessionScenario, type SessionRow } from './session.js'
import { tracingScenario, type TracingResult } from './tracing.js'

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

export async function nodeVersionsScenario (plan: Plan, compareNode: string | undefined): Promise<NodeVersionsResult> {
  const other = compareNode ?? machineNode()
  const nodes = [{ execPath: process.execPath, version: process.version }]
  if (other === undefined) return { rows: [], alone: 'no Node other than the project\'s was found on the PATH (give one with --compare-node <path>)' }
  nodes.push({ execPath: other, version: versionOf(other) })
  const rows: NodeVersionRow[] = []
  for (const { execPath, version } of nodes) {
    const flags: ServerFlags = { execPath }
    const stack = await startBffStack({}, {}, flags)
    try {
      rows.push({ node: version, tracing: await tracingScenario(stack, plan, flags), session: await sessionScenario(stack, 'memory', plan, flags) })
    } finally {
      await stack.stop()
    }
  }
  return { rows }
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
