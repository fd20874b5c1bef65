// `npm test` sets itself up: its pretest installs the programs the suite drives where the
// machine can, or stops with the command to run, then builds, lints and type-checks; CI runs
// nothing else.
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { installCommand, requireProgram, suitePrograms } from '../helpers/programs.js'
import { planPrograms } from './programs-plan.js'

const repoRoot = fileURLToPath(new URL('../../', import.meta.url))

const machine = (missing: string[], { hasAptGet = true, isRoot = true, sources = ['kubectl', 'kubernetes-client'] } = {}) => ({
  found: (program: string) => !missing.includes(program),
  hasAptGet,
  isRoot,
  inSources: (pkg: string) => sources.includes(pkg)
})

async function * typeScriptFiles (dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield * typeScriptFiles(path)
    else if (entry.name.endsWith('.ts')) yield path
  }
}

t.test('every program a test or benchmark requires is one the setup installs', async (t) => {
  const required = new Set<string>()
  const byContainerTests = new Set<string>()
  for (const dir of ['test', 'bench']) {
    for await (const file of typeScriptFiles(join(repoRoot, dir))) {
      // npm run test:container's own programs, which npm test installs though it runs no engine.
      const asked = file.startsWith(join(repoRoot, 'test', 'container')) ? byContainerTests : required
      for (const match of (await readFile(file, 'utf8')).matchAll(/requireProgram\('([^']+)'\)/g)) asked.add(match[1] ?? '')
    }
  }
  t.ok(required.size >= 5, `requireProgram is asked for ${[...required].join(', ')}`)
  t.same([...required].filter((program) => suitePrograms[program] === undefined), [], 'all of them are in suitePrograms')
  t.same([...byContainerTests].filter((program) => suitePrograms[program] === undefined), [], 'test:container\'s too (npm test installs them, though it runs no engine)')
})

t.test('nothing missing: nothing to do', async (t) => {
  t.same(planPrograms(machine([])), { action: 'ready' })
})

t.test('missing on Debian as root: installed with apt-get, saying what and why in one line', async (t) => {
  const plan = planPrograms(machine(['nginx', 'chromium']))
  t.same(plan.action === 'install' && plan.packages, ['nginx', 'chromium'])
  t.equal(plan.action === 'install' && plan.message, 'npm test: installing nginx chromium with apt-get: the tests drive a real nginx, chromium, not found on this machine.')
})

t.test('missing without root: stops with the exact command, sudo included', async (t) => {
  const plan = planPrograms(machine(['redis-server', 'curl'], { isRoot: false }))
  t.equal(plan.action, 'stop')
  t.match(plan.action === 'stop' && plan.message, 'the tests drive a real redis-server, curl, not found on this machine (installing needs root)')
  t.match(plan.action === 'stop' && plan.message, '\n  sudo apt-get update && sudo apt-get install -y --no-install-recommends redis-server curl')
})

t.test('missing without apt-get: stops with the Debian command and says what it names', async (t) => {
  const plan = planPrograms(machine(['openssl'], { hasAptGet: false, isRoot: true }))
  t.equal(plan.action, 'stop')
  t.match(plan.action === 'stop' && plan.message, 'Debian\'s package names')
  t.match(plan.action === 'stop' && plan.message, '\n  apt-get update && apt-get install -y --no-install-recommends openssl')
})

t.test('kubectl: its own package where the apt sources have it, Debian\'s kubernetes-client otherwise', async (t) => {
  const plan = (sources: string[], options = {}): ReturnType<typeof planPrograms> => planPrograms(machine(['kubectl', 'curl'], { sources, ...options }))
  t.same(plan(['kubectl', 'kubernetes-client']), { action: 'install', packages: ['curl', 'kubectl'], message: 'npm test: installing curl kubectl with apt-get: the tests drive a real curl, kubectl, not found on this machine.' })
  t.match(plan(['kubernetes-client']), { action: 'install', packages: ['curl', 'kubernetes-client'] })
  t.match(plan([]), { action: 'install', packages: ['curl', 'kubectl'] }, 'neither: apt-get names the one asked for')
  t.match(plan(['kubernetes-client'], { isRoot: false }), { action: 'stop', message: /apt-get install -y --no-install-recommends curl kubernetes-client$/ })
  t.match(plan([], { hasAptGet: false }), { action: 'stop', message: /apt-get install -y --no-install-recommends curl kubectl$/ }, 'no apt-get: the program\'s own package name')
})

t.test('promtool and prometheus come in one Debian package, installed once', async (t) => {
  t.same(planPrograms(machine(['promtool', 'prometheus'])), { action: 'install', packages: ['prometheus'], message: 'npm test: installing prometheus with apt-get: the tests drive a real promtool, prometheus, not found on this machine.' })
})

t.test('a test that needs a missing program fails with the install command', async (t) => {
  const absent = 'media-bff-no-such-program'
  t.throws(() => requireProgram(absent), { message: `${absent} is needed by this test but was not found on PATH. Install it: ${installCommand([absent])}` })
  t.equal(installCommand(['nginx'], false), 'sudo apt-get update && sudo apt-get install -y --no-install-recommends nginx')
})

t.test('npm test sets up, builds, lints and type-checks; CI runs only npm ci and npm test', async (t) => {
  const pkg = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  t.equal(pkg.scripts.pretest, 'tsx test/setup/programs.ts && tsx test/setup/checks.ts && tap build && tsx test/setup/compiled-tree.ts')
  t.same(/const SCRIPTS = \[(.*)\]/.exec(await readFile(join(repoRoot, 'test/setup/checks.ts'), 'utf8'))?.[1], "'build', 'lint', 'typecheck'", 'checks.ts runs the build, the linter and the type check')
  t.equal(pkg.scripts.test, 'cd .test-build && tap --disable-coverage', 'tap runs in the compiled tree that compiled-tree.ts writes')
  t.equal(pkg.scripts['test:coverage'], 'npm run pretest && cd .test-build && tap', 'the same with the coverage report')
  t.match(pkg.scripts.build, /\bnpm run build:demo\b/, 'the build includes the demo bundle')
  const commands = (await readFile(join(repoRoot, '.ci/run'), 'utf8')).split('\n').map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#') && !line.startsWith('set ') && !line.startsWith('cd '))
  t.same(commands, ['npm ci --no-audit --no-fund', 'npm test'])
  t.match(await readFile(join(repoRoot, 'README.md'), 'utf8'), /```sh\nnpm test\n```/, 'the README\'s test command is the same')
})
