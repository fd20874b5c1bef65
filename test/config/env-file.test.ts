// A file of variables: ENV_FILE, or else (not in production) a .env when present, the environment
// winning (src/config/env-file.ts); and the compiled server run from a directory holding one.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { request } from 'undici'
import { withEnvFile, withoutBlanks } from '../../src/config/env-file.js'
import { ConfigError } from '../../src/config/config.js'
import { startEmulator } from '../../emulator/index.js'
import { startBffProcess } from '../helpers/processes.js'
import { TEST_SESSION_SECRET, testTokenKey } from '../helpers/bff.js'

const server = fileURLToPath(new URL('../../dist/src/server.js', import.meta.url))

async function directoryWith (t: Test, dotEnv?: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'media-bff-env-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  if (dotEnv !== undefined) await writeFile(join(dir, '.env'), dotEnv)
  return dir
}

t.test('the file adds what the environment does not set; the environment wins', async (t) => {
  const dir = await directoryWith(t, [
    '# a comment, as in .env.example',
    'PUBLIC_URL=https://from-file.example',
    'LOG_LEVEL=warn',
    'OAUTH_SCOPES="basic user.info"',
    'EMPTY=',
    ''
  ].join('\n'))
  const { env, file, taken } = withEnvFile({ PUBLIC_URL: 'https://from-environment.example', OTHER: 'kept' }, join(dir, '.env'))
  t.equal(env.PUBLIC_URL, 'https://from-environment.example', 'the environment wins')
  t.equal(env.LOG_LEVEL, 'warn', 'the file fills in')
  t.equal(env.OAUTH_SCOPES, 'basic user.info', 'quotes are the file format\'s')
  t.equal(env.OTHER, 'kept')
  t.equal(env.EMPTY, '')
  t.equal(file, join(dir, '.env'))
  t.same([...taken].sort(), ['EMPTY', 'LOG_LEVEL', 'OAUTH_SCOPES'], 'what the file set, by name')
})

t.test('a variable set blank in the file is dropped, so a default given beside it stands (npm start)', async (t) => {
  const dir = await directoryWith(t, ['SESSION_SECRETS=', 'OAUTH_CLIENT_ID=  ', 'LOG_LEVEL=warn', ''].join('\n'))
  const { env } = withEnvFile({}, join(dir, '.env'))
  t.equal(env.SESSION_SECRETS, '', 'read blank')
  const kept = withoutBlanks(env)
  t.same(kept, { LOG_LEVEL: 'warn' })
  t.equal({ SESSION_SECRETS: 'the demo\'s own', ...kept }.SESSION_SECRETS, 'the demo\'s own')
  t.same(withoutBlanks({ A: ' ', B: 'x', C: undefined }), { B: 'x', C: undefined })
})

t.test('in production only the file ENV_FILE names is read', async (t) => {
  const dir = await directoryWith(t, 'OAUTH_TOKEN_URL=https://attacker.example/token\n')
  const production = { NODE_ENV: 'production', PUBLIC_URL: 'https://bff.example' }
  t.same(withEnvFile(production, join(dir, '.env')), { env: production, file: undefined, taken: [] }, 'a .env nobody named is not read')
  const named = withEnvFile({ ...production, ENV_FILE: join(dir, '.env') }, join(dir, 'unused'))
  t.equal(named.env.OAUTH_TOKEN_URL, 'https://attacker.example/token', 'the named one is')
  t.same(named.taken, ['OAUTH_TOKEN_URL'])
  t.throws(() => withEnvFile({ ...production, ENV_FILE: join(dir, 'missing.env') }), /ENV_FILE: .*missing\.env: cannot be read \(ENOENT\)/, 'a named file that is not there stops the start')
})

t.test('no file: the environment as it is; an unreadable one: a configuration error naming it', async (t) => {
  const dir = await directoryWith(t)
  const env = { PUBLIC_URL: 'https://x.example' }
  t.same(withEnvFile(env, join(dir, '.env')), { env, file: undefined, taken: [] })
  await mkdir(join(dir, 'dir.env'))
  t.throws(() => withEnvFile(env, join(dir, 'dir.env')), ConfigError)
  t.match((() => { try { withEnvFile(env, join(dir, 'dir.env')) } catch (error) { return (error as Error).message } })(), /dir\.env: cannot be read \(EISDIR\)/)
})

t.test('npm run serve (the compiled server) reads .env from its working directory; its environment wins', async (t) => {
  const emulator = await startEmulator({ apiPort: 0, uploadPort: 0 })
  t.teardown(emulator.stop)
  const metricsToken = 'metrics-token-from-dotenv-0123456789abcdef'
  const dir = await directoryWith(t, [
    'PUBLIC_URL=http://127.0.0.1:3999',
    `MEDIA_BASE_URL=${emulator.baseUrl}`,
    `OAUTH_CLIENT_ID=${emulator.clientId}`,
    `OAUTH_CLIENT_SECRET=${emulator.clientSecret}`,
    `SESSION_SECRETS=${TEST_SESSION_SECRET}`,
    `TOKEN_KEYS=${testTokenKey()}`,
    `METRICS_TOKEN=${metricsToken}`,
    'DEMO_SITE=on',
    // The test's own PORT and HOST (startBffProcess sets them) must win over these.
    'PORT=1',
    'HOST=192.0.2.1'
  ].join('\n'))
  const bff = await startBffProcess({ name: 'serve with .env', env: { DEMO_SITE: 'off' }, cwd: dir, args: [server] })
  t.teardown(async () => { await bff.stop() })
  t.equal((await request(`${bff.url}/healthz`)).statusCode, 200, 'listening where the environment says')
  const hidden = await request(`${bff.url}/metrics`)
  await hidden.body.dump()
  t.equal(hidden.statusCode, 404, 'METRICS_TOKEN from .env guards /metrics')
  const shown = await request(`${bff.url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })
  await shown.body.dump()
  t.equal(shown.statusCode, 200)
  const demo = await request(`${bff.url}/`)
  await demo.body.dump()
  t.equal(demo.statusCode, 404, 'DEMO_SITE=off from the environment beats the file\'s on')
  const line = await bff.waitForLog((l) => l.msg === 'configuration: variables taken from a file (the environment set none of them)')
  t.ok(Array.isArray(line.variables) && (line.variables as string[]).includes('METRICS_TOKEN') && !(line.variables as string[]).includes('DEMO_SITE'), 'what the file set is logged by name')
  t.notOk(bff.logs().some((l) => JSON.stringify(l).includes(metricsToken)), 'never a value')
})
