// `npm run soak`: the long soak, printed as markdown for docs/guide/operate.md, "Reliability".
//   npm run soak -- --duration 5m --sessions 200 --replicas 2 --ttl 3 --think 750
// Exits 1 when a check fails.
import { parseArgs } from 'node:util'
import { runSoak } from './soak.js'
import { soakMarkdown, soakProblems } from './soak-report.js'

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5m' },
    sessions: { type: 'string', default: '200' },
    replicas: { type: 'string', default: '2' },
    ttl: { type: 'string', default: '3' },
    think: { type: 'string', default: '750' },
    help: { type: 'boolean', default: false }
  }
})

if (values.help) {
  process.stdout.write('npm run soak -- [--duration 5m|300s] [--sessions 200] [--replicas 2] [--ttl 3 (access token seconds)] [--think 750 (mean ms between calls)]\n')
  process.exit(0)
}

/** "5m", "90s" or "300" (seconds) in milliseconds. */
function duration (text: string): number {
  const match = /^(\d+)(s|m)?$/.exec(text)
  if (match === null) throw new Error(`--duration must look like 5m, 90s or 300, got "${text}"`)
  return Number(match[1]) * (match[2] === 'm' ? 60_000 : 1000)
}

function count (name: string, text: string): number {
  const value = Number(text)
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer, got "${text}"`)
  return value
}

const report = await runSoak({
  durationMs: duration(values.duration),
  sessions: count('sessions', values.sessions),
  replicas: count('replicas', values.replicas),
  accessTokenTtlS: count('ttl', values.ttl),
  thinkMs: count('think', values.think),
  progress: (line) => { process.stderr.write(`soak: ${line}\n`) }
})
process.stdout.write(`${soakMarkdown(report)}\n`)
process.exitCode = soakProblems(report).length === 0 ? 0 : 1
