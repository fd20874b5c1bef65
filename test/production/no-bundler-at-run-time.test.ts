// The demo's script is bundled by `npm run build`, never at run time: no runtime source imports
// esbuild, esbuild is only a dev dependency (so `npm prune --omit=dev`, as the image's build
// stage runs it, leaves no bundler), and the demo plugin reads the bundle the build wrote.
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { demoBundleFile, readDemoBundle } from '../../plugins/demo-site.js'
import { dockerDir, parseDockerfile, repoRoot } from './deployment-files.js'

interface PackageJson {
  scripts: Record<string, string>
  dependencies?: Record<string, string>
  devDependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
}

interface PackageLock {
  packages: Record<string, { dev?: boolean }>
}

const isBundler = (specifier: string): boolean => /^(esbuild|@esbuild\/)/.test(specifier)

async function * sourceFiles (dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield * sourceFiles(path)
    else if (/\.[cm]?[jt]s$/.test(entry.name)) yield path
  }
}

t.test('no runtime source imports the bundler', async (t) => {
  const offenders: string[] = []
  let files = 0
  for (const dir of ['src', 'emulator', 'plugins', 'routes']) {
    for await (const file of sourceFiles(join(repoRoot, dir))) {
      files += 1
      const source = await readFile(file, 'utf8')
      // Static imports and re-exports, import() and require().
      for (const match of source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm)) {
        if (isBundler(match[1] ?? '')) offenders.push(`${file.slice(repoRoot.length)} imports ${match[1] ?? ''}`)
      }
    }
  }
  t.ok(files > 50, `${files} runtime source files read`)
  t.same(offenders, [], 'none imports esbuild')
})

t.test('esbuild is a dev dependency only, also in the lock file', async (t) => {
  const pkg = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as PackageJson
  t.ok(pkg.devDependencies?.esbuild, 'in devDependencies')
  for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies'] as const) {
    t.notOk(Object.keys(pkg[field] ?? {}).some(isBundler), `not in ${field}`)
  }
  // npm prune --omit=dev drops exactly the packages the lock file marks dev: a production
  // dependency that pulled esbuild in would clear the mark.
  const lock = JSON.parse(await readFile(join(repoRoot, 'package-lock.json'), 'utf8')) as PackageLock
  const bundlerPackages = Object.entries(lock.packages).filter(([path]) => isBundler(path.split('node_modules/').at(-1) ?? ''))
  t.ok(bundlerPackages.some(([path]) => path === 'node_modules/esbuild'), 'the lock file holds esbuild')
  t.same(bundlerPackages.filter(([, entry]) => entry.dev !== true).map(([path]) => path), [], 'every esbuild package is dev-only')
})

t.test('the build bundles the demo into dist/, which the runtime stage copies with the pruned dependencies; it installs nothing', async (t) => {
  const pkg = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as PackageJson
  t.match(pkg.scripts.build, /\bnpm run build:demo\b/, 'npm run build bundles the demo')
  t.match(pkg.scripts['build:demo'], /^esbuild public\/demo\.ts --bundle .*--outfile=dist\/demo-site\/demo\.js\b/, 'from public/demo.ts into dist/demo-site/demo.js')
  t.equal(demoBundleFile, join(repoRoot, 'dist/demo-site/demo.js'), 'where the demo plugin reads it from sources (under tsx)')

  const stages = parseDockerfile(await readFile(join(dockerDir, 'Dockerfile'), 'utf8'))
  const build = stages.find((stage) => stage.name === 'build')
  const runtime = stages.at(-1)
  t.ok(build?.all('RUN').some((run) => run.args === 'npm run build'), 'the build stage runs npm run build')
  t.ok(build?.all('RUN').some((run) => /\bnpm prune --omit=dev\b/.test(run.args)), 'the build stage prunes to the production dependencies')
  const runtimeRuns = runtime?.all('RUN').map((run) => run.args) ?? []
  t.notOk(runtimeRuns.some((run) => /\besbuild\b|\bnpm\b|\bnpx\b/.test(run)), `the runtime stage runs no build and no install (${runtimeRuns.join('; ')})`)
  t.ok(runtime?.all('COPY').some((copy) => copy.args === '--from=build /app/node_modules ./node_modules'), 'it copies the pruned node_modules')
  t.ok(runtime?.all('COPY').some((copy) => copy.args === '--from=build /app/dist ./dist'), 'it copies dist/, bundles included')
})

t.test('the demo plugin reads the prebuilt bundle; without it, start-up names npm run build', async (t) => {
  const script = await readDemoBundle()
  t.ok(script.length > 1000, `${demoBundleFile.slice(repoRoot.length)} holds the bundle (${script.length} characters)`)
  t.notMatch(script, /^\s*import\s/m, 'bundled: it imports nothing')
  await t.rejects(readDemoBundle(join(repoRoot, 'dist/demo-site/absent.js')), /missing: run `npm run build` first/)
})
