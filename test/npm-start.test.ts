// `npm start` (dist/src/dev.js: media-bff and the emulator) as a newcomer runs it: with the
// .env.example copied to .env in the working directory, and with BASE_PATH set as well. Each
// serves the demo where it says, and a sign-in goes out with the callback under the same path.
import { spawn } from 'node:child_process'
import { copyFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { request } from 'undici'
import { freePort } from './helpers/ports.js'
import { stopChild, waitForOutput } from './helpers/child-process.js'

const root = fileURLToPath(new URL('../', import.meta.url))

async function npmStart (t: Test, env: Record<string, string> = {}): Promise<{ url: string, printed: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'media-bff-start-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  await copyFile(join(root, '.env.example'), join(dir, '.env'))
  const [port, apiPort, uploadPort] = await Promise.all([freePort(), freePort(), freePort()])
  const child = spawn(process.execPath, [join(root, 'dist/src/dev.js')], {
    cwd: dir,
    env: { PATH: process.env.PATH, PORT: String(port), EMULATOR_API_PORT: String(apiPort), EMULATOR_UPLOAD_PORT: String(uploadPort), ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  t.teardown(async () => { await stopChild(child, 'SIGKILL') })
  const printed = await waitForOutput(child, (out) => out.includes('Press Ctrl-C to stop.'), 60_000)
  return { url: `http://localhost:${port}`, printed }
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
