// stop() leaves nothing behind that keeps a process alive: not the timer of a file still
// processing, not a webhook retry waiting. Checked in a process of its own
// (stopped-emulator-child.ts), which must then end by itself.
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { nodeArgsFor } from '../helpers/loaded-as.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

t.test('a stopped emulator with a file processing and a retry waiting lets its process end', async (t) => {
  const child = spawn(process.execPath, nodeArgsFor(join(root, 'test', 'emulator', 'stopped-emulator-child')), { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
  const ended = await new Promise<number | null | 'still running'>((resolve) => {
    // Generous: starting tsx on a loaded machine takes a few seconds; the timers it must not
    // wait for are ten minutes away.
    const timer = setTimeout(() => { resolve('still running') }, 60_000)
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve(code)
    })
  })
  if (ended === 'still running') child.kill('SIGKILL')
  t.equal(ended, 0, `the process ended by itself:\n${output}`)
  t.match(output, /stopped with \[500\]/, 'one attempt was made, and its retry was waiting')
})
