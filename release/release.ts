// `npm run release -- <version> --image <repository> --npm-registry <url>`: cuts the release of
// the version this tree is at. Its notes are CHANGELOG.md's section for that version; the image
// (OCI annotations, an SBOM inside) is pushed to <repository>:<version>; the browser module is
// published as @media-bff/client@<version>. What was made lands in dist/release/<version>/:
// notes.md, sbom.cdx.json, the package's tarball and release.json (the image's digest among
// them), for the release page. .github/workflows/release.yml runs this on a version tag.
//
// --engine (default CONTAINER_ENGINE, else docker) and CONTAINER_ARGS as `npm run
// test:container` takes them; --insecure-registry for a registry on plain http (podman);
// --provenance to have npm sign the package's provenance (from a CI host that can);
// --only image|package for one of the two; --allow-dirty to cut it from uncommitted changes
// (the suite does, on a local registry). NPM_TOKEN is the npm registry's token.
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { releaseNotes } from './changelog.js'
import { buildImage, imageSbom, pushImage, type Engine, type PushedImage } from './image.js'
import { packClient, publishPackage, type PublishedPackage } from './package.js'
import { run } from './run.js'

const root = fileURLToPath(new URL('../', import.meta.url))

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    image: { type: 'string' },
    'npm-registry': { type: 'string' },
    engine: { type: 'string', default: process.env.CONTAINER_ENGINE ?? 'docker' },
    'insecure-registry': { type: 'boolean', default: false },
    provenance: { type: 'boolean', default: false },
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
const only = values.only
if (only !== undefined && only !== 'image' && only !== 'package') fail('--only takes image or package')
const doImage = only !== 'package'
const doPackage = only !== 'image'
if (doImage && values.image === undefined) fail('--image names the repository the image is pushed to, e.g. ghcr.io/<owner>/media-bff')
if (doPackage && values['npm-registry'] === undefined) fail('--npm-registry names the registry @media-bff/client is published to, e.g. https://registry.npmjs.org/')

let notes: string
try {
  notes = releaseNotes(await readFile(values.changelog, 'utf8'), version)
} catch (error) {
  fail((error as Error).message)
}
const revision = await run('git', ['rev-parse', 'HEAD'], { cwd: root }).catch(() => process.env.GITHUB_SHA ?? '')
const dirty = revision === '' ? '' : await run('git', ['status', '--porcelain'], { cwd: root })
if (dirty !== '' && !values['allow-dirty']) fail(`the tree has uncommitted changes; a release is cut from a commit:\n${dirty}`)

const outDir = resolve(values['out-dir'], version)
await mkdir(outDir, { recursive: true })
await writeFile(join(outDir, 'notes.md'), notes)

let image: PushedImage | undefined
if (doImage) {
  const engine: Engine = {
    command: values.engine,
    args: (process.env.CONTAINER_ARGS ?? '').split(/\s+/).filter((arg) => arg !== ''),
    insecureRegistry: values['insecure-registry']
  }
  const source = (manifest.repository?.url ?? '').replace(/^git\+/, '').replace(/\.git$/, '')
  const tag = await buildImage(engine, root, values.image ?? '', { version, revision, created: new Date().toISOString(), source })
  image = await pushImage(engine, tag)
  await writeFile(join(outDir, 'sbom.cdx.json'), `${await imageSbom(engine, tag)}\n`)
}

let published: PublishedPackage | undefined
if (doPackage) {
  const registry = values['npm-registry'] ?? ''
  const packed = await packClient(root, outDir)
  if (packed.version !== version) fail(`the package was packed as ${packed.version}, not ${version}`)
  await publishPackage(packed.tarball, { registry, version, provenance: values.provenance, token: process.env.NPM_TOKEN })
  published = { ...packed, registry }
}

const summary = { version, revision, notes: join(outDir, 'notes.md'), image, package: published }
await writeFile(join(outDir, 'release.json'), `${JSON.stringify(summary, null, 2)}\n`)
process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`)
