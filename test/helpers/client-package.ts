// The browser module as a site with a bundler gets it: `npm run pack:client` (its tarball, into a
// folder of the test's own), then `npm install <tarball>` into a project of its own, as
// docs/guide/integrate.md ("Installing the browser module") says. The project lies under
// test-artifacts/ (git-ignored), so that above its own node_modules the checkout's are reachable,
// as a site's other dependencies would be (the UI frameworks, TypeScript's types of Svelte and
// Vue). Removed at the test's teardown.
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { Test } from 'tap'

/**
 * The checkout itself, also when the test runs in npm test's compiled copy (.test-build/, whose
 * node_modules is a link to the checkout's): there each .ts file has its compiled .js beside it,
 * and esbuild, asked for './errors.js', takes that one rather than the source, which would make
 * the package differ from the module media-bff serves by its comments.
 */
export const repoRoot = dirname(await realpath(fileURLToPath(new URL('../../node_modules', import.meta.url))))
const run = promisify(execFile)

export interface InstalledClientPackage {
  /** What `npm run pack:client` printed: its last line is the tarball's path. */
  packOutput: string
  tarball: string
  /** The site's project folder, with the package in its node_modules. */
  project: string
  /** node_modules/@media-bff/client in it. */
  installed: string
}

export async function packAndInstallClient (t: Test): Promise<InstalledClientPackage> {
  await mkdir(join(repoRoot, 'test-artifacts'), { recursive: true })
  const project = await mkdtemp(join(repoRoot, 'test-artifacts', 'client-package-'))
  t.teardown(async () => { await rm(project, { recursive: true, force: true }) })
  const { stdout: packOutput } = await run('npm', ['run', '--silent', 'pack:client', '--', '--out-dir', join(project, 'packages')], { cwd: repoRoot })
  const tarball = packOutput.trimEnd().split('\n').at(-1) ?? ''
  await writeFile(join(project, 'package.json'), `${JSON.stringify({ name: 'a-site', private: true, type: 'module' })}\n`)
  // A package without dependencies installs from its tarball alone: nothing is fetched.
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', tarball], { cwd: project })
  return { packOutput, tarball, project, installed: join(project, 'node_modules', '@media-bff', 'client') }
}
