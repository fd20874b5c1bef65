// `npm run test:container`, the image half of `npm run release` (release/release.ts): the release
// command builds the image with its OCI annotations, as an index of one image per platform (the
// engine's own, here: arm64 needs an emulator this machine may lack), pushes it to a real
// registry on loopback (Debian's docker-registry), signs it and attests its SBOM with a key made
// for the test. The image, gone from the engine, then comes back from the registry by tag and by
// digest and runs, the SBOM inside it naming what it holds; `npm run release:verify` accepts the
// signature with the key's public half and refuses it with another key. `--stage prepare` makes
// the same image as an OCI archive and pushes nothing.
import { execFile } from 'node:child_process'
import { generateKeyPairSync } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { request } from 'undici'
import { startImageRegistry } from '../helpers/image-registry.js'
import { repoRoot } from '../production/deployment-files.js'
import { ContainerEngine } from './engine.js'
import { scratchRepository } from '../helpers/scratch-git.js'

const engine = new ContainerEngine()
const exec = promisify(execFile)
const { version, license, repository } = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as { version: string, license: string, repository: { url: string } }
const platform = `linux/${process.arch === 'arm64' ? 'arm64' : 'amd64'}`

async function tsx (script: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number, stdout: string, stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, ['--import', 'tsx', join(repoRoot, script), ...args], { cwd: repoRoot, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024, timeout: 20 * 60_000 })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number, stdout: string, stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

t.test(`the release's image through a registry and back, signed, by tag and by digest, with ${engine.name}`, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'media-bff-release-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  const { host } = await startImageRegistry(t)

  const changelog = join(dir, 'CHANGELOG.md')
  await writeFile(changelog, `# Changelog\n\n## ${version} (2026-11-27)\n\nThe image.\n`)
  const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  await writeFile(join(dir, 'signing.pem'), keys.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 })
  await writeFile(join(dir, 'signing.pub'), keys.publicKey.export({ type: 'spki', format: 'pem' }))
  await writeFile(join(dir, 'other.pub'), generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }))

  const repositoryRef = `${host}/media-bff`
  const cut = await tsx('release/release.ts', [version, '--only', 'image', '--image', repositoryRef, '--engine', engine.name, '--platforms', platform,
    '--sign-key', join(dir, 'signing.pem'), '--insecure-registry', '--allow-dirty', '--changelog', changelog, '--out-dir', join(dir, 'out')], (await scratchRepository(dir)).env)
  t.equal(cut.code, 0, cut.stderr.split('\n').slice(-20).join('\n'))
  const summary = JSON.parse(cut.stdout) as { revision: string, signed: boolean, image: { tag: string, digest: string, platforms: string[] } }
  t.equal(summary.image.tag, `${repositoryRef}:${version}`)
  t.match(summary.image.digest, new RegExp(`^${repositoryRef.replace(/[.]/g, '\\.')}@sha256:[0-9a-f]{64}$`))
  t.same(summary.image.platforms, [platform])
  t.equal(summary.signed, true)

  const tags = await request(`http://${host}/v2/media-bff/tags/list`)
  const digestHex = summary.image.digest.split('@sha256:')[1] ?? ''
  t.same((await tags.body.json() as { tags: string[] }).tags.sort(), [`sha256-${digestHex}.att`, `sha256-${digestHex}.sig`, version].sort(), 'the registry holds the version, its signature and its attestation')
  const index = await request(`http://${host}/v2/media-bff/manifests/${version}`, { headers: { accept: 'application/vnd.oci.image.index.v1+json, application/vnd.docker.distribution.manifest.list.v2+json' } })
  const listed = await index.body.json() as { manifests?: Array<{ platform?: { os: string, architecture: string } }> }
  t.same(listed.manifests?.map((each) => `${each.platform?.os ?? ''}/${each.platform?.architecture ?? ''}`), [platform], 'an index of one image per platform')

  // Nothing of it left in the engine: what runs next comes from the registry.
  await engine.ok(['manifest', 'rm', summary.image.tag]).catch(() => '')
  await engine.ok(['rmi', '-f', summary.image.tag]).catch(() => '')
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
  const inImage = await engine.ok(['run', '--rm', '--network', 'none', '--entrypoint', 'node', summary.image.digest, '-e', 'process.stdout.write(require("node:fs").readFileSync("sbom.cdx.json", "utf8"))'])
  t.same(JSON.parse(inImage), sbom, 'the SBOM written out is the one the image carries')

  const verified = await tsx('release/verify.ts', [summary.image.digest, '--key', join(dir, 'signing.pub'), '--insecure-registry'])
  t.equal(verified.code, 0, verified.stderr)
  t.match(verified.stdout, `${summary.image.digest}: signed by this key; its SBOM attested: media-bff ${version}`)
  const foreign = await tsx('release/verify.ts', [summary.image.digest, '--key', join(dir, 'other.pub'), '--insecure-registry'])
  t.equal(foreign.code, 1, 'another key: refused')
  t.match(foreign.stderr, /no signature of media-bff@sha256:[0-9a-f]{64} verifies with this key/)
  const byTag = await tsx('release/verify.ts', [summary.image.tag, '--key', join(dir, 'signing.pub'), '--insecure-registry'])
  t.match(byTag.stderr, /names no digest: verify what was pushed by digest/, 'a tag is never what is verified')
})

t.test(`--stage prepare: the image as an OCI archive, nothing pushed, with ${engine.name}`, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'media-bff-release-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  const changelog = join(dir, 'CHANGELOG.md')
  await writeFile(changelog, `# Changelog\n\n## ${version} (2026-11-27)\n\nThe image.\n`)
  const prepared = await tsx('release/release.ts', [version, '--stage', 'prepare', '--image', '127.0.0.1:1/media-bff', '--engine', engine.name, '--platforms', platform,
    '--allow-dirty', '--changelog', changelog, '--out-dir', join(dir, 'out')])
  t.equal(prepared.code, 0, prepared.stderr.split('\n').slice(-20).join('\n'))
  const summary = JSON.parse(prepared.stdout) as { image: { archive: string }, signed: boolean, package: { tarball: string } }
  t.equal(summary.image.archive, join(dir, 'out', version, 'image.oci.tar'))
  t.equal(summary.signed, false)
  const { stdout: listing } = await exec('tar', ['-tf', summary.image.archive])
  t.match(listing, /^(\.\/)?index\.json$/m, 'an OCI layout: the index and its blobs')
  const indexJson = JSON.parse((await exec('tar', ['-xOf', summary.image.archive, listing.includes('./index.json') ? './index.json' : 'index.json'], { maxBuffer: 16 * 1024 * 1024 })).stdout) as { manifests: unknown[] }
  t.equal(indexJson.manifests.length, 1, 'one index for the release\'s tag')
  t.match(summary.package.tarball, /media-bff-client-.*\.tgz$/, 'the package, packed, not published')
  t.match(JSON.parse(await readFile(join(dir, 'out', version, 'sbom.cdx.json'), 'utf8')), { bomFormat: 'CycloneDX' })
})
