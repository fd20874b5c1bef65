// npm run pack:client: the browser module as an npm package, @media-bff/client, for a site built
// with a bundler. The package holds what `npm run build:client` makes and media-bff serves (one
// ES module and its bundled declarations, built the same way), this folder's package.template.json
// with media-bff's own version, licence, repository (this folder in it) and issue tracker, its
// homepage the browser module's guide, this folder's README and the LICENSE; `npm pack` turns it
// into a tarball in dist/packages/ (or --out-dir), whose path is the last line printed.
// `npm run release` publishes that tarball (release/package.ts).
//
// It builds into a folder of its own, never dist/client/: a media-bff running from this checkout
// (or a test) may be reading that one.
import { execFile } from 'node:child_process'
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs, promisify } from 'node:util'
import { build } from 'esbuild'
import { rollup, type OutputOptions, type RollupOptions } from 'rollup'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const here = fileURLToPath(new URL('./', import.meta.url))
/** The names media-bff serves the module under (plugins/client-module.ts), kept in the package. */
const MODULE = 'media-bff-client.js'
const TYPES = 'media-bff-client.d.ts'

const { values } = parseArgs({ options: { 'out-dir': { type: 'string', default: join(root, 'dist', 'packages') } } })
const outDir = resolve(values['out-dir'])
// The declarations' build (rollup.config.mjs) names its tsconfig relative to the checkout.
process.chdir(root)

const server = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string, license: string, repository: { type: string, url: string }, homepage: string, bugs: string }
/** The repository's web address, from its git URL. */
const repositoryWeb = server.repository.url.replace(/^git\+/, '').replace(/\.git$/, '')
const template = JSON.parse(await readFile(join(here, 'package.template.json'), 'utf8')) as Record<string, unknown>
for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'scripts']) {
  if (field in template) throw new Error(`package.template.json must not have ${field}: the module is installed as it is, with nothing else`)
}

const stage = await mkdtemp(join(tmpdir(), 'media-bff-client-package-'))
try {
  // build:client's first half, as its command line has it.
  await build({ entryPoints: ['public/client/media-bff-client.ts'], bundle: true, format: 'esm', target: 'es2022', logLevel: 'warning', outfile: join(stage, MODULE) })
  // Its second half: rollup.config.mjs itself, writing into the package instead.
  const { default: declarations } = await import(pathToFileURL(join(root, 'public/client/rollup.config.mjs')).href) as { default: RollupOptions & { output: OutputOptions } }
  const bundle = await rollup({ ...declarations, onwarn: (warning) => { throw new Error(`rollup: ${warning.message}`) } })
  await bundle.write({ ...declarations.output, file: join(stage, TYPES) })
  await bundle.close()

  const { name, ...rest } = template
  const published = {
    name,
    version: server.version,
    ...rest,
    license: server.license,
    repository: { ...server.repository, directory: 'public/client' },
    homepage: `${repositoryWeb}/blob/main/docs/guide/browser-module.md`,
    bugs: server.bugs
  }
  await writeFile(join(stage, 'package.json'), `${JSON.stringify(published, null, 2)}\n`)
  await copyFile(join(here, 'README.md'), join(stage, 'README.md'))
  await copyFile(join(root, 'LICENSE'), join(stage, 'LICENSE'))

  await mkdir(outDir, { recursive: true })
  const { stdout } = await promisify(execFile)('npm', ['pack', stage, '--pack-destination', outDir, '--json', '--ignore-scripts'], { cwd: stage })
  const [packed] = JSON.parse(stdout) as Array<{ filename: string, files: Array<{ path: string }> }>
  if (packed === undefined) throw new Error(`npm pack wrote no tarball: ${stdout}`)
  process.stdout.write(`${name as string}@${server.version}: ${packed.files.map((file) => file.path).sort().join(', ')}\n`)
  process.stdout.write(`${join(outDir, packed.filename)}\n`)
} finally {
  await rm(stage, { recursive: true, force: true })
}
