// npm test's checks before tap (package.json's pretest): `npm run build`, `npm run lint` and
// `npm run typecheck`, side by side. Each runs on one core for about ten seconds; one after the
// other they held the suite back by thirty. Each one's output is printed whole when it ends, and
// npm test stops if any failed.
import { spawn } from 'node:child_process'

const SCRIPTS = ['build', 'lint', 'typecheck']

async function run (script: string): Promise<boolean> {
  const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] })
  const output: Buffer[] = []
  child.stdout.on('data', (chunk: Buffer) => output.push(chunk))
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk))
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
  const text = Buffer.concat(output).toString('utf8')
  process.stdout.write(`npm run ${script}: ${code === 0 ? 'passed' : `failed (exit ${String(code)})`}\n${text}`)
  return code === 0
}

const passed = await Promise.all(SCRIPTS.map(run))
if (passed.includes(false)) process.exit(1)
