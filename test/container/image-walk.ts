// `npm run test:container`: the real image, built and run by a container engine (docker, or
// CONTAINER_ENGINE=podman; CONTAINER_ARGS for its global options; NODE_IMAGE for a copy of the
// base image the Dockerfile pins, where the engine cannot pull it). Not part of `npm test`, which
// has no engine to count on (its files end in .test.ts; this one does not).
//
// It builds docker/Dockerfile, checks what the runtime image holds (the patched @fastify/session,
// no patch-package or other dev tool), runs the emulator (compose.yaml's command, from the same
// image) and media-bff on a network of their own, ports published on 127.0.0.1 only, and walks
// what a website does: sign-in through the emulator's consent form, a relayed listing, an upload
// registered, posted straight to the upload host and finished. Then: media-bff runs unprivileged,
// and `stop` ends it with exit code 0. Containers and the network go on every exit path; the
// image stays, so the next build reuses its layers.
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { Browser } from '../helpers/http-client.js'
import { uploadDirect } from '../helpers/direct-upload.js'
import { freePort } from '../helpers/ports.js'
import { signIn } from '../helpers/sign-in.js'
import { readComposeFile, repoRoot } from '../production/deployment-files.js'
import { ContainerEngine, publishOnLoopback, tail, waitForOk } from './engine.js'
import { imageContents, type ImageContents } from './image-contents.js'

const engine = new ContainerEngine()
const tag = 'media-bff:container-test'
const run = randomBytes(4).toString('hex')
const network = `media-bff-test-${run}`
const emulatorName = `media-bff-test-emulator-${run}`
const bffName = `media-bff-test-bff-${run}`

let cleanedUp = false
function cleanUp (): void {
  if (cleanedUp) return
  cleanedUp = true
  engine.runSync(['kill', emulatorName, bffName])
  engine.runSync(['rm', '-f', emulatorName, bffName])
  engine.runSync(['network', 'rm', network])
}
t.teardown(cleanUp)
process.once('exit', cleanUp)
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    cleanUp()
    process.exit(1)
  })
}

const logsOf = async (name: string): Promise<string> => {
  const logs = await engine.run(['logs', name])
  return tail(`${logs.stdout}${logs.stderr}`)
}
/** Fails at once, with the container's logs, when it is no longer running. */
const aliveCheck = (name: string) => async (): Promise<void> => {
  const running = await engine.run(['inspect', '--format', '{{.State.Running}}', name])
  if (running.stdout.trim() !== 'true') throw new Error(`${name} is not running:\n${await logsOf(name)}`)
}

t.test(`the image, built and walked with ${engine.name}`, async (t) => {
  await engine.ok(['version'], { timeoutMs: 30_000 }).catch((error: Error) => {
    throw new Error(`no usable container engine: ${error.message}\nSet CONTAINER_ENGINE (docker, podman) and CONTAINER_ARGS as your machine needs.`)
  })

  const started = performance.now()
  // NODE_IMAGE: another copy of the pinned base image (a mirror), as `npm run release` takes it.
  const base = process.env.NODE_IMAGE === undefined || process.env.NODE_IMAGE === '' ? [] : ['--build-arg', `NODE_IMAGE=${process.env.NODE_IMAGE}`]
  await engine.ok(['build', '-f', 'docker/Dockerfile', ...base, '-t', tag, '.'], { cwd: repoRoot, timeoutMs: 15 * 60_000 })
  const buildSeconds = (performance.now() - started) / 1000
  const size = Number(await engine.ok(['image', 'inspect', '--format', '{{.Size}}', tag]))
  t.comment(`image ${tag}: ${(size / 1e6).toFixed(1)} MB, built in ${buildSeconds.toFixed(0)} s (layers the engine had cached are reused)`)
  t.equal(await engine.ok(['image', 'inspect', '--format', '{{.Config.User}}', tag]), 'node', 'the image runs as its unprivileged node user')

  // What the runtime stage holds, read by the image's own node.
  const contents = JSON.parse(await engine.ok(['run', '--rm', '--network', 'none', '--entrypoint', 'node', tag, '-e', imageContents])) as ImageContents
  t.comment(`${contents.packages} packages in the image's node_modules`)
  t.ok(contents.sessionPatched, 'node_modules/@fastify/session carries the patch (patches/README.md)')
  t.same(contents.devTools, [], 'no patch-package, TypeScript, esbuild, tsx or tap in the image, nor the npm scripts\' own Node')
  t.notOk(contents.patchesDir, 'no patches/ either: nothing is installed at run time')

  await engine.ok(['network', 'create', network])
  const compose = await readComposeFile()
  const emulatorCommand = compose.services.emulator?.command ?? []
  const clientSecret = randomBytes(16).toString('hex')

  // The ports are picked before the containers start, since the emulator's redirect URI and
  // media-bff's PUBLIC_URL name them. Should another process take one in between, publishing
  // fails with "address already in use": both go and the pair starts again on other ports.
  let ports = { api: 0, upload: 0, bff: 0 }
  for (let attempt = 1; ; attempt++) {
    ports = { api: await freePort(), upload: await freePort(), bff: await freePort() }
    const origins = { api: `http://127.0.0.1:${ports.api}`, upload: `http://127.0.0.1:${ports.upload}`, bff: `http://127.0.0.1:${ports.bff}` }
    const emulator = await engine.run(['run', '-d', '--name', emulatorName, '--network', network, '--network-alias', 'emulator',
      ...publishOnLoopback(ports.api, 4000), ...publishOnLoopback(ports.upload, 4001),
      // The image's HEALTHCHECK probes media-bff's port; compose.yaml gives the emulator its own.
      '--no-healthcheck',
      ...env({
        EMULATOR_HOST: '0.0.0.0',
        EMULATOR_API_PORT: '4000',
        EMULATOR_UPLOAD_PORT: '4001',
        EMULATOR_CLIENT_ID: 'media-bff-demo',
        EMULATOR_CLIENT_SECRET: clientSecret,
        EMULATOR_REDIRECT_URI: `${origins.bff}/auth/callback`,
        // As in compose.yaml: media-bff calls the API by its name on the network (the finish URL
        // of a registration is written with it), the browser posts files to the published port.
        EMULATOR_PUBLIC_API_ORIGIN: 'http://emulator:4000',
        EMULATOR_PUBLIC_UPLOAD_ORIGIN: origins.upload,
        EMULATOR_CORS_ORIGINS: origins.bff
      }),
      tag, ...emulatorCommand])
    const bff = emulator.code !== 0
      ? emulator
      : await engine.run(['run', '-d', '--name', bffName, '--network', network, ...publishOnLoopback(ports.bff, 3000), ...env({
        // The image sets NODE_ENV=production, which refuses a plain-http PUBLIC_URL (its session
        // cookie is Secure and __Host- only over https). Nothing here terminates TLS, and this
        // test cannot stand in for a trusted proxy (the address a published port's connections
        // come from differs between engines), so media-bff runs as the local demo does, over
        // plain http; the settings production insists on are given all the same.
        NODE_ENV: 'development',
        PUBLIC_URL: origins.bff,
        MEDIA_BASE_URL: 'http://emulator:4000',
        ALLOW_INSECURE_UPSTREAM: 'on',
        // The browser reaches the consent page through the published port.
        OAUTH_AUTHORIZATION_URL: `${origins.api}/api/oauth2/authorize`,
        OAUTH_CLIENT_ID: 'media-bff-demo',
        OAUTH_CLIENT_SECRET: clientSecret,
        SESSION_SECRETS: randomBytes(32).toString('base64url'),
        TOKEN_KEYS: `k1:${randomBytes(32).toString('base64')}`,
        UPLOAD_ALLOWED_HOSTS: `127.0.0.1:${ports.upload}`
      }), tag])
    if (emulator.code === 0 && bff.code === 0) break
    const failure = `${emulator.stderr}${bff.stderr}`
    engine.runSync(['rm', '-f', emulatorName, bffName])
    if (attempt >= 3 || !/address already in use|port is already allocated/i.test(failure)) throw new Error(`the containers did not start:\n${tail(failure)}`)
  }
  await waitForOk(`http://127.0.0.1:${ports.api}/__emulator/counters`, aliveCheck(emulatorName))
  await waitForOk(`http://127.0.0.1:${ports.bff}/readyz`, aliveCheck(bffName))

  const publicUrl = `http://127.0.0.1:${ports.bff}`
  const browser = new Browser(publicUrl)
  const { callback, authorizeUrl } = await signIn(browser, { loginPath: '/auth/login?scope=upload&return_to=/' })
  t.equal(new URL(authorizeUrl).origin, `http://127.0.0.1:${ports.api}`, 'sign-in goes to the emulator\'s consent page on its published port')
  t.equal(callback.status, 302, callback.status === 302 ? 'the callback signs in' : callback.text)
  t.equal(callback.location, '/', 'and comes back to the page it started from')
  const session = (await browser.get('/auth/session')).json() as { authenticated: boolean, user?: { name: string }, scopes?: string[] }
  t.match(session, { authenticated: true, user: { name: 'Alice Example' } }, 'signed in as alice')
  t.ok(session.scopes?.includes('upload'), `allowed to upload (${session.scopes?.join(' ') ?? ''})`)

  const listing = await browser.get('/api/folders/0/contents')
  t.equal(listing.status, 200, listing.status === 200 ? 'GET /api/folders/0/contents through the relay' : listing.text)
  const home = listing.json() as { folders: Array<{ name: string, api: { self: string } }> }
  t.ok(home.folders.some((folder) => folder.name === 'Lectures'), 'the relay lists alice\'s home folder')
  t.ok(home.folders.every((folder) => folder.api.self.startsWith(`${publicUrl}/api/folders/`)), 'with the service\'s links rewritten onto media-bff')

  const registered = await browser.post('/uploads/register', { folder_id: 0, title: 'From the container' })
  t.equal(registered.status, 200, registered.status === 200 ? 'POST /uploads/register' : registered.text)
  const registration = registered.json() as { url_upload_direct: string, finish_url: string }
  t.match(registration.url_upload_direct, `http://127.0.0.1:${ports.upload}/`, 'the upload goes straight to the upload host\'s published port')
  const uploaded = await uploadDirect(registration.url_upload_direct, 'container.txt', 'bytes that never pass through media-bff')
  t.equal(uploaded.status, 200, uploaded.status === 200 ? 'the file posted to url_upload_direct' : JSON.stringify(uploaded.body))
  const finished = await browser.post(registration.finish_url)
  t.equal(finished.status, 200, finished.status === 200 ? 'POST /uploads/:ulid/finish' : finished.text)
  t.match(finished.json(), { status: 'success', files: [{ filename: 'container.txt' }] }, 'finished: the file is in the library')

  const metrics = await browser.get('/metrics')
  t.match(metrics.text, /^process_resident_memory_bytes /m, 'Node\'s default metrics under their standard names')

  // PID 1 of the container is the image's CMD; its status line says whose it is. Read from a
  // second container that shares media-bff's process namespace (no exec into media-bff itself).
  const status = await engine.ok(['run', '--rm', '--network', 'none', '--pid', `container:${bffName}`, '--entrypoint', 'node', tag, '-e', 'const fs = require("fs"); process.stdout.write(JSON.stringify({ cmdline: fs.readFileSync("/proc/1/cmdline", "utf8").split("\\0").filter(Boolean), uid: fs.readFileSync("/proc/1/status", "utf8").match(/^Uid:\\s+(.*)$/m)[1].split(/\\s+/).map(Number) }))'])
  const pid1 = JSON.parse(status) as { cmdline: string[], uid: number[] }
  t.same(pid1.cmdline, ['node', 'dist/src/server.js'], 'the server is PID 1, so stop\'s SIGTERM reaches it')
  t.ok(pid1.uid.length === 4 && pid1.uid.every((uid) => uid !== 0), `and runs unprivileged (uids ${pid1.uid.join(' ')})`)

  await engine.ok(['stop', '-t', '25', bffName], { timeoutMs: 60_000 })
  t.equal(await engine.ok(['inspect', '--format', '{{.State.ExitCode}}', bffName]), '0', 'stop ends media-bff with exit code 0')
  t.match(await logsOf(bffName), /"msg":"closing"/, 'after closing gracefully')
  await engine.ok(['stop', '-t', '25', emulatorName], { timeoutMs: 60_000 })
  t.equal(await engine.ok(['inspect', '--format', '{{.State.ExitCode}}', emulatorName]), '0', 'and the emulator with 0 too')
})

/** `-e NAME=value` for each variable. */
function env (variables: Record<string, string>): string[] {
  return Object.entries(variables).flatMap(([name, value]) => ['-e', `${name}=${value}`])
}
