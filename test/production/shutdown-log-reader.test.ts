// SIGTERM ends media-bff within its grace period whatever became of the reader of its standard
// output and error (src/log-destination.ts): a log shipper that stopped reading (the pipe full),
// or one that went away (its end closed). The production entry in a process of its own, its
// stdout and stderr pipes to this test; with a reader that keeps up, no line is lost.
import t, { type Test } from 'tap'
import { spawn, type ChildProcessByStdio } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import type { Readable } from 'node:stream'
import { request } from 'undici'
import { freePort } from '../helpers/ports.js'
import { nodeArgsFor } from '../helpers/loaded-as.js'
import { repoRoot } from './deployment-files.js'
import { SHUTDOWN_GRACE_MS } from '../../src/server-options.js'

type Child = ChildProcessByStdio<null, Readable, Readable>

const start = async (t: Test): Promise<{ child: Child, url: string }> => {
  const port = await freePort()
  const child = spawn(process.execPath, nodeArgsFor('src/server'), {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      MEDIA_BASE_URL: 'http://127.0.0.1:9',
      OAUTH_CLIENT_ID: 'client',
      OAUTH_CLIENT_SECRET: 'secret',
      SESSION_SECRETS: randomBytes(32).toString('base64url'),
      TOKEN_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      LOG_LEVEL: 'info'
    },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  t.teardown(() => {
    child.kill('SIGKILL')
    // A paused pipe with lines in it would keep this test's process alive.
    child.stdout.destroy()
    child.stderr.destroy()
  })
  const url = `http://127.0.0.1:${port}`
  for (let tries = 0; ; tries++) {
    const healthy = await request(`${url}/healthz`).then(async (answer) => { await answer.body.dump(); return answer.statusCode === 200 }, () => false)
    if (healthy) break
    if (tries > 300 || child.exitCode !== null) throw new Error('media-bff did not start')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return { child, url }
}

/** Requests whose log lines (each with its 8 KB path) add up to far more than a pipe holds. */
const logMegabytes = async (url: string): Promise<void> => {
  for (let i = 0; i < 200; i++) await request(`${url}/${'x'.repeat(8 * 1024)}-${i}`).then(async (answer) => { await answer.body.dump() }, () => {})
}

const stopped = async (child: Child): Promise<{ code: number | null, ms: number }> => {
  const started = Date.now()
  const exit = new Promise<number | null>((resolve) => { child.once('exit', (code) => { resolve(code) }) })
  child.kill('SIGTERM')
  let timer: NodeJS.Timeout | undefined
  const code = await Promise.race([exit, new Promise<'running'>((resolve) => { timer = setTimeout(() => resolve('running'), SHUTDOWN_GRACE_MS + 5_000) })])
  clearTimeout(timer)
  if (code === 'running') throw new Error(`still running ${SHUTDOWN_GRACE_MS + 5_000} ms after SIGTERM`)
  return { code, ms: Date.now() - started }
}

t.test('the reader stopped reading, the pipe full: SIGTERM still ends it, well within the grace period', async (t) => {
  const { child, url } = await start(t)
  // Paused, Node reads no more than its buffer holds: the pipe fills and stays full.
  child.stdout.pause()
  child.stderr.pause()
  await logMegabytes(url)
  const { code, ms } = await stopped(child)
  t.equal(code, 0, 'a clean exit')
  t.ok(ms < SHUTDOWN_GRACE_MS, `in ${ms} ms (grace: ${SHUTDOWN_GRACE_MS} ms)`)
})

t.test('the reader went away, its ends closed: SIGTERM ends it', async (t) => {
  const { child, url } = await start(t)
  child.stdout.destroy()
  child.stderr.destroy()
  await logMegabytes(url)
  const { code, ms } = await stopped(child)
  t.equal(code, 0, 'a clean exit')
  t.ok(ms < SHUTDOWN_GRACE_MS, `in ${ms} ms`)
})

t.test('a reader that keeps up gets every line, the last one at SIGTERM included', async (t) => {
  const { child, url } = await start(t)
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  await logMegabytes(url)
  const ended = new Promise((resolve) => { child.stdout.once('end', resolve) })
  const { code } = await stopped(child)
  await ended
  t.equal(code, 0)
  const lines = output.trim().split('\n').map((line) => JSON.parse(line) as { msg?: string, req?: { path?: string } })
  t.equal(lines.filter((line) => line.msg === 'request completed' && line.req?.path?.startsWith('/xxx') === true).length, 200, 'each request\'s line')
  t.equal(lines.at(-1)?.msg, 'closing', 'and the last, written as it closed')
})
