// `npm start` (dist/src/dev.js: media-bff and the emulator) as a newcomer runs it: with the
// .env.example copied to .env in the working directory, and with BASE_PATH set as well. Each
// serves the demo where it says, and a sign-in goes out with the callback under the same path.
import { spawn } from 'node:child_process'
import { appendFile, copyFile, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { connect, createServer } from 'node:net'
import { once } from 'node:events'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { request } from 'undici'
import { freePort } from './helpers/ports.js'
import { stopChild, waitForOutput } from './helpers/child-process.js'

const root = fileURLToPath(new URL('../', import.meta.url))

/** dist/src/dev.js in a scratch directory holding .env.example as .env (plus `extraLines`). */
async function spawnStart (t: Test, env: Record<string, string>, extraLines = ''): Promise<{ child: ReturnType<typeof spawn>, port: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'media-bff-start-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  await copyFile(join(root, '.env.example'), join(dir, '.env'))
  if (extraLines !== '') await appendFile(join(dir, '.env'), extraLines)
  const [port, apiPort, uploadPort] = await Promise.all([freePort(), freePort(), freePort()])
  const child = spawn(process.execPath, [join(root, 'dist/src/dev.js')], {
    cwd: dir,
    env: { PATH: process.env.PATH, PORT: String(port), EMULATOR_API_PORT: String(apiPort), EMULATOR_UPLOAD_PORT: String(uploadPort), ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  t.teardown(async () => { await stopChild(child, 'SIGKILL') })
  return { child, port: Number(env.PORT ?? port) }
}

async function npmStart (t: Test, env: Record<string, string> = {}, extraLines = ''): Promise<{ url: string, printed: string }> {
  const { child, port } = await spawnStart(t, env, extraLines)
  const printed = await waitForOutput(child, (out) => out.includes('Press Ctrl-C to stop.'), 60_000)
  return { url: `http://localhost:${port}`, printed }
}

/** What the program printed on both outputs by the time it exited, and how it exited. */
async function exitOf (child: ReturnType<typeof spawn>): Promise<{ code: number | null, stderr: string }> {
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8') })
  child.stdout?.resume()
  const [code] = await once(child, 'exit') as [number | null]
  return { code, stderr }
}

/** A port some other program holds. */
async function takenPort (t: Test): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => { server.close() })
  return (server.address() as { port: number }).port
}

t.test('cp .env.example .env && npm start: the demo at the root', async (t) => {
  const { url, printed } = await npmStart(t)
  t.match(printed, `media-bff demo is running: open ${url}/\n`)
  t.match(printed, /Read \.env: /, 'the file was read')
  const demo = await request(`${url}/`)
  t.equal(demo.statusCode, 200)
  t.match(await demo.body.text(), /<script type="module" src="demo\.js">/)
  const login = await request(`${url}/auth/login`)
  await login.body.dump()
  t.equal(login.statusCode, 302)
  t.equal(new URL(String(login.headers.location)).searchParams.get('redirect_uri'), `${url}/auth/callback`)
})

t.test('BASE_PATH=/media-bff npm start: the same demo under the path, nothing at the root', async (t) => {
  const { url, printed } = await npmStart(t, { BASE_PATH: '/media-bff' })
  t.match(printed, `media-bff demo is running: open ${url}/media-bff/\n`)
  const demo = await request(`${url}/media-bff/`)
  await demo.body.dump()
  t.equal(demo.statusCode, 200)
  const outside = await request(`${url}/`)
  await outside.body.dump()
  t.equal(outside.statusCode, 404)
  const login = await request(`${url}/media-bff/auth/login`)
  await login.body.dump()
  t.equal(new URL(String(login.headers.location)).searchParams.get('redirect_uri'), `${url}/media-bff/auth/callback`)
  const consent = await request(String(login.headers.location))
  await consent.body.dump()
  t.equal(consent.statusCode, 200, 'the emulator knows that redirect URI: its consent page opens')
})

t.test('a taken port is said, with the variable that moves it, and the exit is not 0', async (t) => {
  const port = await takenPort(t)
  const mine = await exitOf((await spawnStart(t, { PORT: String(port) })).child)
  t.equal(mine.code, 78)
  t.match(mine.stderr, `media-bff could not listen on 127.0.0.1:${port}: port ${port} is taken`)
  t.match(mine.stderr, /PORT moves it, e\.g\. PORT=3100 npm start/)

  const emulators = await exitOf((await spawnStart(t, { EMULATOR_API_PORT: String(port) })).child)
  t.equal(emulators.code, 78)
  t.match(emulators.stderr, `The media emulator could not listen on 127.0.0.1:${port}: port ${port} is taken`)
  t.match(emulators.stderr, /EMULATOR_API_PORT moves it/)
})

t.test('the pages of ALLOWED_ORIGINS may upload to npm start\'s emulator, as PUBLIC_URL\'s may', async (t) => {
  const devServer = 'http://localhost:5173'
  const { printed } = await npmStart(t, { ALLOWED_ORIGINS: devServer })
  const uploadOrigin = /\(uploads: (http:\/\/[^)]+)\)/.exec(printed)?.[1]
  t.ok(uploadOrigin, 'the upload origin is printed')
  for (const origin of [devServer, 'http://localhost:5174']) {
    const preflight = await request(`${uploadOrigin ?? ''}/upload/01HZY0000000000000000000AA`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST' }
    })
    await preflight.body.dump()
    if (origin === devServer) t.equal(preflight.headers['access-control-allow-origin'], devServer, 'the dev server\'s page may upload')
    else t.not(preflight.headers['access-control-allow-origin'], origin, 'an origin nobody named may not')
  }
})

t.test('a misspelt name in .env is named at start with the one meant, and not listed as read', async (t) => {
  const { printed } = await npmStart(t, {}, 'SESSION_IDLE_TIMOUT=5m\n')
  t.match(printed, /SESSION_IDLE_TIMOUT: is not a variable media-bff reads; did you mean SESSION_IDLE_TIMEOUT\? \(set in \.env\)/)
  const read = /Read \.env: (.*)\n/.exec(printed)?.[1] ?? ''
  t.notMatch(read, 'SESSION_IDLE_TIMOUT', 'never among the variables taken from the file')
})

// An IDE or a process manager stops `npm start` by signalling npm's own process, not the group
// a terminal's Ctrl-C reaches. npm passes the signal to the process that runs the script only: a
// shell would keep it (package.json's `start` execs node), and media-bff and the emulator must
// stop. And when npm is killed outright, they stop too (src/dev.ts). The script here is
// package.json's `start` as it is, but for its build (done already).
for (const signal of ['SIGTERM', 'SIGINT', 'SIGKILL'] as const) {
  t.test(`${signal} to npm's own process stops media-bff and the emulator`, async (t) => {
    const { scripts } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    const build = 'npm run build && '
    t.ok(scripts.start?.startsWith(build), 'npm start builds, then runs what follows')
    const dir = await mkdtemp(join(tmpdir(), 'media-bff-start-'))
    t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'start-under-npm', private: true, scripts: { start: `true && ${(scripts.start ?? '').slice(build.length)}` } }))
    await symlink(join(root, 'dist'), join(dir, 'dist'))
    const ports = await Promise.all([freePort(), freePort(), freePort()])
    const [port, apiPort, uploadPort] = ports
    const npm = spawn('npm', ['start', '--silent'], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), EMULATOR_API_PORT: String(apiPort), EMULATOR_UPLOAD_PORT: String(uploadPort) },
      stdio: ['ignore', 'pipe', 'pipe'],
      // A group of its own, which the signal below does not reach (it goes to npm alone): only
      // for a failed test's clean-up, which ends the whole group.
      detached: true
    })
    t.teardown(() => { endGroup(npm.pid) })
    await waitForOutput(npm, (out) => out.includes('Press Ctrl-C to stop.'), 60_000)
    const outputClosed = once(npm.stdout, 'close')
    npm.stderr.resume()
    npm.kill(signal)
    // The output's pipe is held by every process npm started: closed, they have all ended.
    await outputClosed
    for (const listening of ports) t.notOk(await answers(listening), `nothing listens on ${String(listening)} any more`)
  })
}

/** Whether anything accepts a connection on the port. */
async function answers (port: number | undefined): Promise<boolean> {
  return await new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: port ?? 0 })
    socket.once('connect', () => { socket.destroy(); resolve(true) })
    socket.once('error', () => { resolve(false) })
  })
}

/** For a failed test only: ends whatever of the group is left (a media-bff npm did not stop). */
function endGroup (pid: number | undefined): void {
  if (pid === undefined) return
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // The group is gone already.
  }
}
