// `npm run test:container`, the image half of `npm run release` (release/release.ts): the release
// command builds the image with its OCI annotations and pushes it to a real registry on loopback
// (Debian's docker-registry); the image, gone from the engine, then comes back from the registry
// by tag and by digest and runs, the SBOM inside it naming what it holds.
import { spawn, execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { request } from 'undici'
import { freePort } from '../helpers/ports.js'
import { requireProgram } from '../helpers/programs.js'
import { stopChild } from '../helpers/child-process.js'
import { repoRoot } from '../production/deployment-files.js'
import { ContainerEngine } from './engine.js'

const engine = new ContainerEngine()
const exec = promisify(execFile)
const { version, license, repository } = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as { version: string, license: string, repository: { url: string } }

t.test(`the release's image through a registry and back, by tag and by digest, with ${engine.name}`, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'media-bff-registry-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  const port = await freePort()
  await writeFile(join(dir, 'config.yml'), [
    'version: 0.1',
    'log: { level: error }',
    `storage: { filesystem: { rootdirectory: ${join(dir, 'storage')} } }`,
    `http: { addr: "127.0.0.1:${port}" }`,
    ''
  ].join('\n'))
  const registry = spawn(requireProgram('docker-registry'), ['serve', join(dir, 'config.yml')], { stdio: 'ignore' })
  t.teardown(async () => { await stopChild(registry) })
  for (let tries = 0; ; tries++) {
    const answer = await request(`http://127.0.0.1:${port}/v2/`).catch(() => undefined)
    await answer?.body.dump()
    if (answer?.statusCode === 200) break
    if (tries > 100) throw new Error('docker-registry did not start')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }

  const changelog = join(dir, 'CHANGELOG.md')
  await writeFile(changelog, `# Changelog\n\n## ${version} (2026-11-27)\n\nThe image.\n`)
  const repositoryRef = `127.0.0.1:${port}/media-bff`
  const { stdout } = await exec(process.execPath, ['--import', 'tsx', join(repoRoot, 'release/release.ts'), version, '--only', 'image', '--image', repositoryRef, '--engine', engine.name,
    '--insecure-registry', '--allow-dirty', '--changelog', changelog, '--out-dir', join(dir, 'out')], { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024, timeout: 20 * 60_000 })
  const summary = JSON.parse(stdout) as { revision: string, image: { tag: string, digest: string } }
  t.equal(summary.image.tag, `${repositoryRef}:${version}`)
  t.match(summary.image.digest, new RegExp(`^${repositoryRef.replace(/[.]/g, '\\.')}@sha256:[0-9a-f]{64}$`))

  const tags = await request(`http://127.0.0.1:${port}/v2/media-bff/tags/list`)
  t.same((await tags.body.json() as { tags: string[] }).tags, [version], 'the registry holds the version')

  // Nothing of it left in the engine: what runs next comes from the registry.
  await engine.ok(['rmi', '-f', summary.image.tag])
  const tls = /podman/.test(engine.name) ? ['--tls-verify=false'] : []
  for (const reference of [summary.image.tag, summary.image.digest]) {
    await engine.ok(['pull', ...tls, reference], { timeoutMs: 10 * 60_000 })
    const ran = await engine.ok(['run', '--rm', '--network', 'none', '--entrypoint', 'node', reference, '-e', 'process.stdout.write(JSON.parse(require("node:fs").readFileSync("package.json", "utf8")).version)'])
    t.equal(ran, version, `pulled by ${reference === summary.image.tag ? 'tag' : 'digest'}, it runs media-bff ${version}`)
  }

  const labels = JSON.parse(await engine.ok(['image', 'inspect', '--format', '{{json .Config.Labels}}', summary.image.digest])) as Record<string, string>
  t.match(labels, {
    'org.opencontainers.image.version': version,
    'org.opencontainers.image.revision': summary.revision,
    'org.opencontainers.image.source': repository.url.replace(/^git\+/, '').replace(/\.git$/, ''),
    'org.opencontainers.image.licenses': license,
    'org.opencontainers.image.created': /^\d{4}-\d{2}-\d{2}T/
  }, 'its OCI annotations')

  const sbom = JSON.parse(await readFile(join(dir, 'out', version, 'sbom.cdx.json'), 'utf8')) as { bomFormat: string, metadata: { component: { name: string, version: string } }, components: Array<{ name: string, version: string }> }
  t.equal(sbom.bomFormat, 'CycloneDX')
  t.match(sbom.metadata.component, { name: 'media-bff', version })
  const names = new Set(sbom.components.map((component) => component.name))
  for (const name of ['fastify', '@fastify/session', 'openid-client', 'undici', 'pino', 'node']) t.ok(names.has(name), `the SBOM names ${name}`)
  t.notOk(names.has('typescript') || names.has('tap') || names.has('esbuild'), 'and no build tool: what the image holds, not what built it')
})
