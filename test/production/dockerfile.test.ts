// There is no Docker engine where npm test runs, so docker/Dockerfile is checked here for what
// matters, and its HEALTHCHECK command is run against a real listener. compose-file.test.ts does
// the same for compose.yaml; image-layout.test.ts builds and runs the image's file layout.
// Where there is an engine, `npm run test:container` builds and runs the image itself.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { dockerDir, execForm, parseDockerfile, parseEnvFile, repoRoot } from './deployment-files.js'

const dockerfile = parseDockerfile(await readFile(`${dockerDir}Dockerfile`, 'utf8'))
const secretNames = Object.keys(parseEnvFile(await readFile(`${dockerDir}.env.example`, 'utf8')))
const runtime = dockerfile.at(-1)

t.test('Dockerfile: two stages on Node 24 LTS; the build stage installs, patches and prunes, the runtime stage installs nothing', async (t) => {
  t.same(dockerfile.map((stage) => stage.name), ['build', 'sbom', 'runtime'], 'a build stage, the SBOM alone, and the runtime stage last (what a build without --target makes)')
  const [build, sbom] = dockerfile
  for (const stage of [build, runtime]) t.match(stage?.image, /^node:24-bookworm-slim@sha256:[0-9a-f]{64}$/, `${stage?.name ?? ''}: Node 24 LTS, slim Debian, pinned by digest`)
  t.equal(build?.image, runtime?.image, 'both on the same base')
  t.equal(sbom?.image, 'scratch')
  t.same(sbom?.instructions.map((instruction) => `${instruction.keyword} ${instruction.args}`), ['COPY --from=build /app/sbom.cdx.json /sbom.cdx.json'], 'the sbom stage is the SBOM the runtime image carries, and nothing else')
  t.equal(build?.name, 'build')
  const buildRuns = build?.all('RUN').map((run) => run.args) ?? []
  const install = buildRuns.findIndex((run) => /^npm ci\b/.test(run) && !run.includes('--omit=dev'))
  const compile = buildRuns.indexOf('npm run build')
  const prune = buildRuns.findIndex((run) => /^npm prune --omit=dev --omit=optional\b/.test(run))
  t.ok(install >= 0, 'build: npm ci with dev dependencies (TypeScript), whose postinstall applies patches/')
  t.ok(compile > install, 'build: then npm run build')
  t.ok(prune > compile, 'build: then npm prune --omit=dev --omit=optional, once nothing needs the dev dependencies (nor the Node the npm scripts run on)')
  const manifestOf = JSON.parse(await readFile(`${repoRoot}package.json`, 'utf8')) as { optionalDependencies?: Record<string, string> }
  t.same(Object.keys(manifestOf.optionalDependencies ?? {}).filter((name) => !name.startsWith('node-linux-')), [], 'the only optional dependencies are that Node, so --omit=optional takes nothing the app needs')
  t.ok(build?.all('COPY').some((copy) => copy.args === 'patches ./patches'), 'build: patches/ copied for npm ci')
  // What npm run build compiles (tsconfig.build.json) is all in the build stage: a folder left
  // out (as emulator/ once was when it moved out of src/) fails the image's build alone.
  const compiled = (JSON.parse(await readFile(`${repoRoot}tsconfig.build.json`, 'utf8')) as { include: string[] }).include
  const copied = build?.all('COPY').map((copy) => copy.args) ?? []
  t.same(compiled.filter((dir) => !copied.includes(`${dir} ./${dir}`)), [], `build: every folder npm run build compiles is copied (${compiled.join(', ')})`)

  // A patch that no longer applies fails npm ci everywhere, not only where CI is set; the
  // container test (test/container/) checks the patched file inside the built image.
  const manifest = JSON.parse(await readFile(`${repoRoot}package.json`, 'utf8')) as { scripts: Record<string, string>, dependencies: Record<string, string>, devDependencies: Record<string, string> }
  t.equal(manifest.scripts.postinstall, 'patch-package --error-on-fail')
  t.ok(manifest.devDependencies['patch-package'], 'patch-package is a dev dependency')
  t.notOk(manifest.dependencies['patch-package'], 'and not a production one')

  const runtimeRuns = runtime?.all('RUN').map((run) => run.args) ?? []
  t.same(runtimeRuns.filter((run) => /\bnpm\b|patch-package/.test(run)), [], 'runtime: no npm install, no patch-package')
  t.notOk(runtime?.all('COPY').some((copy) => copy.args.startsWith('patches')), 'runtime: no patches/')
  t.ok(runtime?.all('COPY').some((copy) => copy.args === '--from=build /app/node_modules ./node_modules'), 'runtime: the pruned, patched node_modules from the build stage')
  t.ok(runtime?.all('ENV').some((env) => /^NODE_ENV=production$/.test(env.args)), 'NODE_ENV=production')
  t.same(runtime?.all('WORKDIR').map((dir) => dir.args), ['/app'])
  const copies = runtime?.all('COPY').map((copy) => copy.args) ?? []
  // The compiled code is ES modules: package.json's "type": "module" must sit above dist/.
  t.ok(copies.includes('package.json ./'), 'package.json beside dist/')
  t.ok(copies.includes('--from=build /app/dist ./dist'), 'the compiled code from the build stage')
  // dist/plugins/demo-site.js reads ../../public/: public must sit beside dist.
  t.ok(copies.includes('public ./public'), 'the demo assets beside dist/')
  const demoPlugin = await readFile(`${repoRoot}plugins/demo-site.ts`, 'utf8')
  t.match(demoPlugin, /'\.\.\/\.\.\/public\/'/, 'where the compiled demo plugin looks for them')
  // The demo's script is bundled by the build stage's npm run build and travels inside dist/.
  t.match(demoPlugin, /'\.\.\/demo-site\/demo\.js'/, 'where the compiled demo plugin looks for its bundle: dist/demo-site/')
})

t.test('Dockerfile: non-root, a health check, the server as the command, nothing secret inside', async (t) => {
  const users = runtime?.all('USER').map((user) => user.args) ?? []
  t.equal(users.at(-1), 'node', 'runs as the image\'s unprivileged node user')
  const instructions = runtime?.instructions.map((instruction) => instruction.keyword) ?? []
  t.ok(instructions.lastIndexOf('USER') < instructions.indexOf('CMD'), 'USER comes before CMD')
  t.same(runtime?.all('EXPOSE').map((expose) => expose.args), ['3000'])
  t.same(execForm(runtime?.all('CMD')[0]?.args ?? ''), ['node', 'dist/src/server.js'], 'node itself, exec form, so SIGTERM reaches it')
  t.same(runtime?.all('ENTRYPOINT'), [], 'no entrypoint wrapper')

  const healthcheck = execForm(runtime?.all('HEALTHCHECK')[0]?.args ?? '')
  t.equal(healthcheck?.[0], 'node', 'HEALTHCHECK runs node (the slim image has no curl)')
  t.match(healthcheck?.join(' '), /fetch\(.*\/healthz/, 'with fetch on /healthz')

  const everything = dockerfile.flatMap((stage) => stage.instructions)
  const sources = everything.filter((i) => i.keyword === 'COPY' || i.keyword === 'ADD').flatMap((i) => i.args.split(/\s+/).filter((word) => !word.startsWith('--')).slice(0, -1))
  t.notOk(sources.some((source) => source === '.' || /(^|\/)\.env/.test(source)), `no .env and no whole-context copy (${sources.join(', ')})`)
  const settings = everything.filter((i) => i.keyword === 'ENV' || i.keyword === 'ARG').map((i) => i.args).join('\n')
  for (const name of [...secretNames, 'REDIS_URL']) t.notMatch(settings, name, `${name} is not baked in`)
  const dockerignore = (await readFile(`${repoRoot}.dockerignore`, 'utf8')).split('\n').map((line) => line.trim())
  t.ok(dockerignore.includes('**/.env'), '.dockerignore keeps every .env (docker/.env too) out of the build context')
  for (const source of sources.filter((s) => !s.startsWith('/'))) {
    t.notOk(dockerignore.includes(source), `${source} is in the build context`)
  }
})

t.test('the image\'s HEALTHCHECK command, run: 0 for a healthy /healthz, 1 otherwise', async (t) => {
  const command = execForm(runtime?.all('HEALTHCHECK')[0]?.args ?? '') ?? []
  let status = 200
  const server = createServer((request, response) => {
    response.statusCode = request.url === '/healthz' || request.url === '/media-bff/healthz' ? status : 404
    response.end('{}')
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => { server.close() })
  const port = String((server.address() as AddressInfo).port)
  const check = async (env: Record<string, string>): Promise<number | null> => {
    const child = spawn(process.execPath, command.slice(1), { env: { PATH: process.env.PATH, ...env }, stdio: 'ignore' })
    const [code] = await once(child, 'exit') as [number | null]
    return code
  }
  t.equal(await check({ PORT: port }), 0, 'healthy on the port PORT names')
  t.equal(await check({ PORT: port, BASE_PATH: '/media-bff/' }), 0, 'under BASE_PATH')
  t.equal(await check({ PORT: port, BASE_PATH: '/elsewhere' }), 1, 'only there')
  status = 503
  t.equal(await check({ PORT: port }), 1, 'unhealthy when /healthz fails')
  server.close()
  t.equal(await check({ PORT: port }), 1, 'unhealthy when nothing listens')
})

t.test('Dockerfile: the OCI annotations a release passes, the licence package.json names, and an SBOM inside', async (t) => {
  const { license } = JSON.parse(await readFile(`${repoRoot}package.json`, 'utf8')) as { license: string }
  const labels = runtime?.all('LABEL').map((label) => label.args).join(' ') ?? ''
  t.match(labels, `org.opencontainers.image.licenses="${license}"`)
  for (const [name, arg] of [['version', 'VERSION'], ['revision', 'REVISION'], ['created', 'CREATED'], ['source', 'SOURCE']]) {
    t.match(labels, `org.opencontainers.image.${name ?? ''}="\${${arg ?? ''}}"`, `${name ?? ''} from the build argument ${arg ?? ''}`)
    t.ok(runtime?.all('ARG').some((instruction) => instruction.args.startsWith(`${arg ?? ''}=`)), `${arg ?? ''} is declared in the runtime stage`)
  }
  const [build] = dockerfile
  t.ok(build?.all('RUN').some((instruction) => instruction.args === 'node release/image-sbom.mjs > sbom.cdx.json'), 'the build stage writes the SBOM once pruned')
  t.ok(runtime?.all('COPY').some((instruction) => instruction.args === '--from=build /app/sbom.cdx.json ./sbom.cdx.json'), 'and the image holds it')
})
