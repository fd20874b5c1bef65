// The image without Docker: the build stage's `npm run build` (tsc, then package.json's
// build:demo bundling the demo's script) into a directory laid out as the runtime stage's /app
// (dist/, public/, package.json), then the image's CMD and the emulator command of compose.yaml
// run from it with compose.yaml's own environment, only host names and ports swapped for local
// ones. A sign-in, a re-authorization for upload, an upload and its finish then cross every
// address compose.yaml wires together.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { cp, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises'
import { builtinModules } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { Browser } from '../helpers/http-client.js'
import { uploadDirect } from '../helpers/direct-upload.js'
import { freePort } from '../helpers/ports.js'
import { startBffProcess } from '../helpers/processes.js'
import { startRedis } from '../helpers/redis.js'
import { signIn } from '../helpers/sign-in.js'
import { dockerDir, execForm, parseDockerfile, readComposeFile, repoRoot, serviceEnv } from './deployment-files.js'

const run = async (args: string[], cwd: string, program = process.execPath): Promise<void> => {
  const child = spawn(program, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString() })
  const [code] = await once(child, 'exit') as [number | null]
  if (code !== 0) throw new Error(`${program} ${args.join(' ')} exited ${String(code)}:\n${output}`)
}

async function * jsFiles (dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield * jsFiles(path)
    else if (entry.name.endsWith('.js')) yield path
  }
}

// /app of the runtime stage. node_modules is the repository's (dev dependencies included), so
// the import check below stands in for the build stage's `npm prune --omit=dev`.
const app = await mkdtemp(join(tmpdir(), 'media-bff-image-'))
t.teardown(async () => { await rm(app, { recursive: true, force: true }) })
// The build stage's `npm run build` with another outDir. --noCheck: the same files are emitted,
// without the type check that `npm run build` and `npm run typecheck` already do in CI.
await run([join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', join(app, 'dist'), '--noCheck'], repoRoot)
// build:demo as package.json has it, writing into this dist/ instead.
const pkg = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as { dependencies: Record<string, string>, scripts: Record<string, string> }
const [bundler, ...bundleArgs] = (pkg.scripts['build:demo'] ?? '').split(/\s+/)
if (bundler !== 'esbuild') throw new Error(`package.json's build:demo runs ${String(bundler)}, not esbuild`)
await run(bundleArgs.map((arg) => arg.startsWith('--outfile=dist/') ? `--outfile=${join(app, arg.slice('--outfile='.length))}` : arg), repoRoot, join(repoRoot, 'node_modules/.bin/esbuild'))
// build:client's two files, as npm run build (this suite's pretest) made them.
await cp(join(repoRoot, 'dist/client'), join(app, 'dist/client'), { recursive: true })
await cp(join(repoRoot, 'public'), join(app, 'public'), { recursive: true })
await cp(join(repoRoot, 'package.json'), join(app, 'package.json'))
await symlink(join(repoRoot, 'node_modules'), join(app, 'node_modules'), 'dir')

const runtime = parseDockerfile(await readFile(join(dockerDir, 'Dockerfile'), 'utf8')).at(-1)
const cmd = execForm(runtime?.all('CMD')[0]?.args ?? '') ?? []
const healthcheck = execForm(runtime?.all('HEALTHCHECK')[0]?.args ?? '') ?? []
const compose = await readComposeFile()

t.test('the compiled code imports only production dependencies', async (t) => {
  const allowed = new Set([...Object.keys(pkg.dependencies), ...builtinModules])
  const missing = new Set<string>()
  let files = 0
  for await (const file of jsFiles(join(app, 'dist'))) {
    files += 1
    const source = await readFile(file, 'utf8')
    for (const match of source.matchAll(/(?:from|import)\s*\(?\s*'([^'.\s,][^'\s,]*)'/g)) {
      const specifier = (match[1] ?? '').replace(/^node:/, '')
      const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0] ?? ''
      if (!allowed.has(name)) missing.add(`${name} (${file.slice(app.length + 1)})`)
    }
  }
  t.ok(files > 50, `${files} compiled files`)
  t.same([...missing], [], 'nothing that npm prune --omit=dev takes away')
})

t.test('CMD and the emulator command run from the layout with compose.yaml\'s environment', async (t) => {
  const redis = await startRedis()
  t.teardown(redis.destroy)
  const apiPort = await freePort()
  const uploadPort = await freePort()
  // compose.yaml's names and ports, as they are on this machine.
  const local = (env: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(env).map(([name, value]) => [name, value
    .replace('redis://redis:6379', redis.url)
    .replace('emulator:4000', `127.0.0.1:${apiPort}`)
    .replace('localhost:4000', `localhost:${apiPort}`)
    .replace('localhost:4001', `localhost:${uploadPort}`)]))
  const clientSecret = randomBytes(16).toString('hex')

  const emulatorCommand = compose.services.emulator?.command ?? []
  t.equal(emulatorCommand[0], 'node')
  const emulator = spawn(process.execPath, emulatorCommand.slice(1), {
    cwd: app,
    env: { PATH: process.env.PATH, ...local(serviceEnv(compose.services.emulator ?? {}, { OAUTH_CLIENT_SECRET: clientSecret })), EMULATOR_HOST: '127.0.0.1', EMULATOR_API_PORT: String(apiPort), EMULATOR_UPLOAD_PORT: String(uploadPort) },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  const emulatorExit = once(emulator, 'exit') as Promise<[number | null]>
  t.teardown(async () => {
    if (emulator.exitCode === null) emulator.kill('SIGKILL')
    await emulatorExit
  })
  let banner = ''
  emulator.stdout.setEncoding('utf8')
  for await (const chunk of emulator.stdout) {
    banner += String(chunk)
    if (banner.includes('Press Ctrl-C')) break
  }
  t.match(banner, 'redirect URI:   https://localhost:8443/auth/callback')

  const replica = await startBffProcess({
    name: 'image-cmd',
    cwd: app,
    args: cmd.slice(1),
    env: {
      ...local(serviceEnv(compose.services['media-bff-1'] ?? {})),
      // The image's ENV, and docker/.env's secrets.
      NODE_ENV: 'production',
      SESSION_SECRETS: randomBytes(32).toString('base64url'),
      TOKEN_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      OAUTH_CLIENT_SECRET: clientSecret,
      // The test plays nginx here: it sends X-Forwarded-Proto from 127.0.0.1.
      TRUST_PROXY: '127.0.0.1'
    }
  })
  t.teardown(async () => { await replica.stop('SIGTERM') })
  t.same(cmd, ['node', 'dist/src/server.js'])

  const check = spawn(process.execPath, healthcheck.slice(1), { env: { PATH: process.env.PATH, PORT: String(replica.port) }, stdio: 'ignore' })
  t.same(await once(check, 'exit'), [0, null], 'the HEALTHCHECK command passes against the running CMD')

  const browser = new Browser(replica.url, { 'x-forwarded-proto': 'https' })
  const page = await browser.get('/')
  t.equal(page.status, 200, 'DEMO_SITE=on serves public/index.html from beside dist/')
  t.match(page.text, /<html/i)
  const script = await browser.get('/demo.js')
  t.equal(script.status, 200, 'and the script bundled by the build into dist/demo-site/')
  t.match(String(script.headers['content-type']), /javascript/)
  t.match((await browser.get('/readyz')).json(), { status: 'ready', store: 'redis' })

  const { callback, authorizeUrl } = await signIn(browser)
  t.equal(new URL(authorizeUrl).origin, `http://localhost:${apiPort}`, 'the browser is sent to the emulator\'s published port')
  t.equal(callback.status, 302)
  const needsUpload = await browser.post('/uploads/register', { folder_id: 0 })
  t.equal(needsUpload.status, 403, 'compose asks for no upload scope up front')
  const { reauthorize_url: reauthorizeUrl } = needsUpload.json() as { reauthorize_url: string }
  t.equal((await signIn(browser, { loginPath: reauthorizeUrl })).callback.status, 302, 're-authorized for upload')

  const registered = await browser.post('/uploads/register', { folder_id: 0, title: 'From the image layout' })
  t.equal(registered.status, 200, registered.text)
  const record = registered.json() as { url_upload_direct: string, finish_url: string, api: { finish: string } }
  t.match(record.url_upload_direct, `http://localhost:${uploadPort}/upload/`, 'upload URLs on the published upload port')
  t.match(record.api.finish, `http://127.0.0.1:${apiPort}/api/`, 'finish URLs on the address the replicas reach')
  t.equal((await uploadDirect(record.url_upload_direct, 'layout.txt', 'compiled')).status, 200)
  const finished = await browser.post(record.finish_url)
  t.equal(finished.status, 200, finished.text)
  t.match(finished.json(), { status: 'success', files: [{ filename: 'layout.txt' }] })

  t.equal(await replica.stop('SIGTERM'), 0, 'CMD exits 0 on SIGTERM')
  emulator.kill('SIGTERM')
  t.same(await emulatorExit, [0, null], 'so does the emulator')
})
