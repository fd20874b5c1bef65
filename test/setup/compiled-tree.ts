// npm test's last step before tap (package.json's pretest): the repository copied to .test-build/
// with every TypeScript file compiled to JavaScript beside it, where `npm test` then runs tap.
//
// Why: module hooks (tsx's, and tap's own, which stay) resolve and load every ES module a test
// process imports. On Node 24, importing the app under tap's hooks takes 0.9 s of CPU compiled
// and 1.9 s through tsx (0.7 s against 1.4 s of wall time), in every test process that builds an
// app. (On Node 20, where the hooks ran on a second thread, 27 route test files took 128 s of
// CPU through tsx, 111 s compiled, 88 s with typebox bundled too, below.) The type check stays
// `npm run typecheck`; esbuild here only strips types (about a second).
//
// The copy keeps every relative path a test uses (docker/, public/, the README, the .ts sources
// beside their .js), and links node_modules/, dist/ and test-artifacts/ to the repository's own.
// `npx tap test/some.test.ts` still runs a file from the sources, through tsx.
import { cp, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = fileURLToPath(new URL('../../', import.meta.url))
const treeDir = join(root, '.test-build')

/** Not copied: what is built or installed (linked instead), the tree itself, and local files. */
const LEFT_OUT = new Set(['.git', '.tap', '.test-build', '.env', 'coverage', 'node_modules', 'dist', 'test-artifacts'])
const LINKED = ['node_modules', 'dist', 'test-artifacts']
const COMPILED_DIRS = ['src', 'emulator', 'plugins', 'routes', 'test', 'bench', 'public', 'release', 'docs/recipes']

async function typeScriptFiles (dir: string): Promise<string[]> {
  const files: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(join(entry.parentPath, entry.name))
  }
  return files
}

await rm(treeDir, { recursive: true, force: true })
await mkdir(treeDir)
for (const entry of await readdir(root)) {
  if (LEFT_OUT.has(entry) || entry.endsWith('.log') || entry.startsWith('.scratch')) continue
  await cp(join(root, entry), join(treeDir, entry), { recursive: true })
}
await mkdir(join(root, 'test-artifacts'), { recursive: true })
for (const entry of LINKED) await symlink(join('..', entry), join(treeDir, entry), 'dir')

// The routes take TypeBox's `Type` from @fastify/type-provider-typebox, which re-exports the
// typebox package, and the contract (src/contract/) takes it from typebox itself: ESM in about
// 320 files, each loaded through tap's module hooks in every test process that loads the routes,
// about a second of CPU each time. The tree imports the same version bundled into one file
// instead, from both names and from typebox/compile (the live events' checks,
// src/events/live-events.ts), so there is one TypeBox (the built server in dist/ keeps the
// package's own).
const TYPEBOX_PROVIDER = '@fastify/type-provider-typebox'
const typeboxBundle = join(treeDir, 'test-vendor', 'typebox.js')
await build({
  stdin: { contents: "export * from 'typebox'\nexport { Compile } from 'typebox/compile'", resolveDir: join(root, 'node_modules', TYPEBOX_PROVIDER), sourcefile: 'typebox-bundle.js' },
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node24',
  outfile: typeboxBundle,
  logLevel: 'warning'
})

const sources = (await Promise.all(COMPILED_DIRS.map(async (dir) => await typeScriptFiles(join(treeDir, dir))))).flat()
const compiled = await build({
  entryPoints: sources,
  outdir: treeDir,
  outbase: treeDir,
  format: 'esm',
  platform: 'node',
  target: 'node24',
  // Linked maps: tap's coverage and a failing test's stack point at the .ts lines.
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
  write: false
})
const providerImport = new RegExp(`^(import [^;]* from )"(${TYPEBOX_PROVIDER}|typebox|typebox/compile)";$`, 'gm')
const dynamicImports = [TYPEBOX_PROVIDER, 'typebox', 'typebox/compile'].map((name) => `import("${name}")`)
await Promise.all(compiled.outputFiles.map(async (output) => {
  let text = output.text
  if (output.path.endsWith('.js')) {
    const bundle = relative(dirname(output.path), typeboxBundle)
    const specifier = bundle.startsWith('.') ? bundle : `./${bundle}`
    text = text.replace(providerImport, (_, head: string) => `${head}"${specifier}";`)
    const dynamic = dynamicImports.find((call) => text.includes(call))
    if (dynamic !== undefined) throw new Error(`${output.path}: ${dynamic} is not redirected to the bundle`)
  }
  await writeFile(output.path, text)
}))

// tap in the tree runs the compiled test files, without a loader.
const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { tap: Record<string, unknown> }
pkg.tap = {
  ...pkg.tap,
  'node-arg': [],
  include: ['test/**/*.test.js']
}
await writeFile(join(treeDir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`)
process.stdout.write(`npm test: ${sources.length} TypeScript files compiled into ${relative(root, treeDir)}/\n`)
