// `npm run release -- <version> --image <repository> --npm-registry <url>`: cuts the release of
// the version this tree is at. Its notes are CHANGELOG.md's dated section for that version; the
// image (OCI annotations, an SBOM inside) is pushed to <repository>:<version>, and with
// --sign-key signed and its SBOM attested (release/signature.ts); the browser module is
// published as @media-bff/client@<version>. What was made lands in dist/release/<version>/:
// notes.md, sbom.cdx.json, the package's tarball and release.json (the image's digest among
// them), for the release page.
//
// --stage prepare makes only what needs no credential: the notes, the SBOM, the package's tarball
// and the image as an OCI archive (image.oci.tar) rather than pushed. The forge's CI runs that in
// a job of its own and publishes what it made in another (.github/workflows/release.yml).
//
// --engine (default CONTAINER_ENGINE, else docker) and CONTAINER_ARGS as `npm run
// test:container` takes them; NODE_IMAGE builds on another base image (a mirror); --platforms
// linux/amd64,linux/arm64 for an index of one image per platform; --insecure-registry for a
// registry on plain http; --provenance to have npm sign the package's provenance (from a CI host
// that can); --only image|package for one of the two; --allow-dirty to cut it from uncommitted
// changes (the suite does, on a local registry). NPM_TOKEN is the npm registry's token.
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { releaseNotes } from './changelog.js'
import { buildAndPush, buildArchive, exportSbom, missingEngine, type Engine, type PushedImage } from './image.js'
import { packClient, publishPackage, type PublishedPackage } from './package.js'
import { parseReference } from './registry.js'
import { attestSbom, signImage, signingKey } from './signature.js'
import { run } from './run.js'

const root = fileURLToPath(new URL('../', import.meta.url))

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    image: { type: 'string' },
    'npm-registry': { type: 'string' },
    engine: { type: 'string', default: process.env.CONTAINER_ENGINE ?? 'docker' },
    platforms: { type: 'string' },
    'insecure-registry': { type: 'boolean', default: false },
    'sign-key': { type: 'string' },
    provenance: { type: 'boolean', default: false },
    stage: { type: 'string', default: 'all' },
    only: { type: 'string' },
    'allow-dirty': { type: 'boolean', default: false },
    changelog: { type: 'string', default: join(root, 'CHANGELOG.md') },
    'out-dir': { type: 'string', default: join(root, 'dist', 'release') }
  }
})

function fail (message: string): never {
  process.stderr.write(`release: ${message}\n`)
  process.exit(1)
}

const [version] = positionals
const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string, repository?: { url?: string } }
if (version === undefined || !/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) fail('name the version to release: npm run release -- 0.3.0 --image <repository> --npm-registry <url>')
if (version !== manifest.version) fail(`this tree is at ${manifest.version}, not ${version}: set package.json's version (and the changelog's section) in a commit first`)
const { only, stage } = values
if (only !== undefined && only !== 'image' && only !== 'package') fail('--only takes image or package')
if (stage !== 'all' && stage !== 'prepare') fail('--stage takes prepare (what needs no credential) or all (the default)')
const publishing = stage === 'all'
const doImage = only !== 'package'
const doPackage = only !== 'image'
if (doImage && values.image === undefined) fail('--image names the repository the image is pushed to, e.g. ghcr.io/<owner>/media-bff')
if (doPackage && publishing && values['npm-registry'] === undefined) fail('--npm-registry names the registry @media-bff/client is published to, e.g. https://registry.npmjs.org/')
if (values['sign-key'] !== undefined && (!doImage || !publishing)) fail('--sign-key signs the image as it is pushed: not with --only package or --stage prepare')
const platforms = (values.platforms ?? '').split(',').map((platform) => platform.trim()).filter((platform) => platform !== '')
const engine: Engine = {
  command: values.engine,
  args: (process.env.CONTAINER_ARGS ?? '').split(/\s+/).filter((arg) => arg !== ''),
  insecureRegistry: values['insecure-registry'],
  ...(process.env.NODE_IMAGE === undefined || process.env.NODE_IMAGE === '' ? {} : { nodeImage: process.env.NODE_IMAGE })
}
if (doImage) {
  const missing = missingEngine(engine)
  if (missing !== undefined) fail(missing)
}
const key = values['sign-key'] === undefined ? undefined : await readFile(values['sign-key'], 'utf8').then(signingKey, (error: unknown) => fail(`--sign-key: ${(error as Error).message}`))

let notes: string
try {
  notes = releaseNotes(await readFile(values.changelog, 'utf8'), version)
} catch (error) {
  fail((error as Error).message)
}
const revision = await run('git', ['rev-parse', 'HEAD'], { cwd: root }).catch(() => process.env.GITHUB_SHA ?? '')
const dirty = revision === '' ? '' : await run('git', ['status', '--porcelain'], { cwd: root })
if (dirty !== '' && !values['allow-dirty']) fail(`the tree has uncommitted changes; a release is cut from a commit:\n${dirty}`)
// A tag of this version elsewhere than here: the release would not be what the tag names.
const tagged = revision === '' ? '' : await run('git', ['rev-parse', '--verify', '--quiet', `refs/tags/v${version}^{commit}`], { cwd: root }).catch(() => '')
if (tagged !== '' && tagged !== revision) fail(`the tag v${version} names ${tagged.slice(0, 12)}, not this commit (${revision.slice(0, 12)})`)

const outDir = resolve(values['out-dir'], version)
await mkdir(outDir, { recursive: true })
await writeFile(join(outDir, 'notes.md'), notes)

let image: PushedImage | { archive: string, platforms: readonly string[] } | undefined
let signed = false
if (doImage) {
  const source = (manifest.repository?.url ?? '').replace(/^git\+/, '').replace(/\.git$/, '')
  const annotations = { version, revision, created: new Date().toISOString(), source }
  const repository = values.image ?? ''
  await writeFile(join(outDir, 'sbom.cdx.json'), await exportSbom(engine, root, annotations))
  if (publishing) {
    const pushed = await buildAndPush(engine, root, repository, annotations, platforms)
    image = pushed
    if (key !== undefined) {
      const { repository: where, digest } = parseReference(pushed.digest, engine.insecureRegistry)
      if (digest === undefined) fail(`${pushed.digest} names no digest to sign`)
      await signImage(where, digest, key)
      await attestSbom(where, digest, JSON.parse(await readFile(join(outDir, 'sbom.cdx.json'), 'utf8')), key)
      signed = true
    }
  } else {
    image = { archive: await buildArchive(engine, root, repository, annotations, platforms, join(outDir, 'image.oci.tar')), platforms }
  }
}

let published: PublishedPackage | undefined
let packed: Awaited<ReturnType<typeof packClient>> | undefined
if (doPackage) {
  packed = await packClient(root, outDir)
  if (packed.version !== version) fail(`the package was packed as ${packed.version}, not ${version}`)
  if (publishing) {
    const registry = values['npm-registry'] ?? ''
    await publishPackage(packed.tarball, { registry, version, provenance: values.provenance, token: process.env.NPM_TOKEN })
    published = { ...packed, registry }
  }
}

const summary = { version, revision, notes: join(outDir, 'notes.md'), image, signed, package: published ?? packed }
await writeFile(join(outDir, 'release.json'), `${JSON.stringify(summary, null, 2)}\n`)
process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`)
