// SIGTERM ends media-bff within its grace period whatever became of the reader of its standard
// output and error (src/log-destination.ts): a log shipper that stopped reading (the pipe full),
// or one that went away (its end closed). The production entry in a process of its own, its
// stdout and stderr pipes to this test; with a reader that keeps up, no line is lost; with one
// that lags, ordinary lines are dropped before any audit line, and one line says how many.
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

interface Started { child: Child, url: string, output: () => string }

/**
 * The production entry started, and known to be the one listening on its port (its own log says
 * so). Another process may take the port between freePort() and the bind: then on another one.
 */
const start = async (t: Test, env: Record<string, string> = {}): Promise<Started> => {
  for (let attempt = 1; ; attempt++) {
    const started = await startOn(t, await freePort(), env)
    if (started !== 'port taken' || attempt === 3) {
      if (started === 'port taken') throw new Error('three ports in a row were taken before media-bff could listen')
      return started
    }
  }
}

const startOn = async (t: Test, port: number, extraEnv: Record<string, string>): Promise<Started | 'port taken'> => {
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
      LOG_LEVEL: 'info',
      ...extraEnv
    },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  t.teardown(() => {
    child.kill('SIGKILL')
    // A paused pipe with lines in it would keep this test's process alive.
    child.stdout.destroy()
    child.stderr.destroy()
  })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  const url = `http://127.0.0.1:${port}`
  let errors = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { errors += chunk })
  // Its own line, not only an answer on the port: a process that took the port would answer too.
  const listening = `"Server listening at ${url}"`
  for (let tries = 0; ; tries++) {
    const healthy = output.includes(listening) && await request(`${url}/healthz`).then(async (answer) => { await answer.body.dump(); return answer.statusCode === 200 }, () => false)
    if (healthy) break
    if (child.exitCode !== null && `${output}${errors}`.includes('EADDRINUSE')) return 'port taken'
    if (tries > 300 || child.exitCode !== null) throw new Error(`media-bff did not start:\n${output}${errors}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return { child, url, output: () => output }
}

/** Requests whose log lines (each with its 8 KB path) add up to far more than a pipe holds; how each was answered. */
const logMegabytes = async (url: string): Promise<Record<string, number>> => {
  const answered: Record<string, number> = {}
  for (let i = 0; i < 200; i++) {
    const outcome = await request(`${url}/${'x'.repeat(8 * 1024)}-${i}`).then(async (answer) => { await answer.body.dump(); return String(answer.statusCode) }, (error: Error) => error.message)
    answered[outcome] = (answered[outcome] ?? 0) + 1
  }
  return answered
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
  const { child, url, output } = await start(t)
  t.same(await logMegabytes(url), { 404: 200 }, 'every request answered')
  const ended = new Promise((resolve) => { child.stdout.once('end', resolve) })
  const { code } = await stopped(child)
  await ended
  t.equal(code, 0)
  const lines = output().trim().split('\n').map((line) => JSON.parse(line) as { msg?: string, req?: { path?: string } })
  const byMessage: Record<string, number> = {}
  for (const line of lines) byMessage[line.msg ?? '-'] = (byMessage[line.msg ?? '-'] ?? 0) + 1
  t.equal(lines.filter((line) => line.msg === 'request completed' && line.req?.path?.startsWith('/xxx') === true).length, 200, `each request's line (lines by message: ${JSON.stringify(byMessage)})`)
  t.equal(lines.at(-1)?.msg, 'closing', 'and the last, written as it closed')
})

t.test('the reader lags: ordinary lines are dropped first, the operator\'s lever is recorded, and one line says how many were dropped', async (t) => {
  const token = randomBytes(32).toString('base64url')
  const { child, url, output } = await start(t, { OPERATOR_TOKEN: token })
  child.stdout.pause()
  await logMegabytes(url)
  const lever = await request(`${url}/operator/users/default/someone/sessions`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } })
  t.equal(lever.statusCode, 200, 'the lever answers')
  await lever.body.dump()
  child.stdout.resume()
  const said = (): boolean => output().includes('"audit":"operator_lever"') && output().includes('log lines were dropped')
  for (let tries = 0; !said() && tries < 200; tries++) await new Promise((resolve) => setTimeout(resolve, 50))
  const lines = output().trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
  const audit = lines.find((line) => line.audit === 'operator_lever')
  t.match(audit, { audit_schema: 1, outcome: 'success', tenant: 'default', person: 'someone', live: 0, msg: 'audit: operator_lever' }, 'the lever\'s audit line, written after hundreds of request lines were dropped')
  const note = lines.find((line) => line.msg === 'log lines were dropped: the reader of the log did not keep up')
  t.ok(typeof note?.dropped === 'number' && note.dropped > 0, `one line says how many were dropped (${String(note?.dropped)})`)
  t.equal(note?.audit_dropped, 0, 'none of them an audit line')
  t.ok(lines.filter((line) => line.msg === 'request completed').length < 200, 'request lines were dropped')
})
