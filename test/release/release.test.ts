// `npm run release` (release/release.ts), the package half, end to end on loopback: the release
// command publishes @media-bff/client to a real npm registry (verdaccio), and a scratch app that
// knows nothing of this checkout installs it by name and version and type-checks against it. The
// image half pushes to a real registry in `npm run test:container`. The release refuses a version
// the tree is not at and notes still marked unreleased.
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'
import { request } from 'undici'
import { releaseNotes, ReleaseNotesError } from '../../release/changelog.js'
import { startNpmRegistry } from '../helpers/npm-registry.js'
import { scratchRepository } from '../helpers/scratch-git.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const tsc = join(root, 'node_modules/typescript/bin/tsc')
const { version, repository } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string, repository: { url: string } }
const exec = promisify(execFile)

async function release (args: string[], env: Record<string, string> = {}): Promise<{ code: number, stdout: string, stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, ['--import', 'tsx', join(root, 'release/release.ts'), ...args], { cwd: root, env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number, stdout: string, stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

t.test('the notes are the version\'s section of the changelog, which must be dated', async (t) => {
  const changelog = '# Changelog\n\n## 1.1.0 (unreleased)\n\nnext\n\n## 1.0.0 (2026-11-27)\n\n### Changed\n- one\n\n## 0.9.0 (2026-10-01)\n\nold\n'
  t.equal(releaseNotes(changelog, '1.0.0'), '### Changed\n- one\n')
  t.equal(releaseNotes(changelog, '0.9.0'), 'old\n', 'the last section runs to the end')
  t.throws(() => releaseNotes(changelog, '1.1.0'), new ReleaseNotesError('CHANGELOG.md\'s section for 1.1.0 is still "1.1.0 (unreleased)": give it the release date, e.g. "## 1.1.0 (YYYY-MM-DD)"'))
  for (const heading of ['## 0.2.0', '## 0.2.0 (soon)', '## 0.2.0 (2026-13-01)', '## 0.2.0 (2026-02-30)', '## 0.2.0 2026-11-27']) {
    t.throws(() => releaseNotes(`# Changelog\n\n${heading}\n\nold\n`, '0.2.0'), new ReleaseNotesError(`CHANGELOG.md's section for 0.2.0 carries no release date ("${heading}"): write it as "## 0.2.0 (YYYY-MM-DD)"`), `${heading}: undated, not a release`)
  }
  t.throws(() => releaseNotes(changelog, '2.0.0'), { name: 'ReleaseNotesError', message: 'CHANGELOG.md has no section "## 2.0.0": write the release notes first' })
  t.throws(() => releaseNotes(changelog, '1.0'), { name: 'ReleaseNotesError' }, 'a prefix of a version is not it')
})

t.test('published by name and version; a scratch app installs it from the registry and type-checks', async (t) => {
  const registry = await startNpmRegistry(t)
  const dir = await mkdtemp(join(tmpdir(), 'media-bff-release-test-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  const changelog = join(dir, 'CHANGELOG.md')
  await writeFile(changelog, `# Changelog\n\n## ${version} (2026-11-27)\n\nWhat changed.\n`)

  const { env: git } = await scratchRepository(dir)

  const next = version.replace(/\d+$/, (patch) => String(Number(patch) + 1))
  const refused = await release([next, '--only', 'package', '--npm-registry', registry.url, '--allow-dirty', '--changelog', changelog], git)
  t.equal(refused.code, 1)
  t.match(refused.stderr, `this tree is at ${version}, not ${next}`)

  const cut = await release([version, '--only', 'package', '--npm-registry', registry.url, '--changelog', changelog, '--out-dir', join(dir, 'out')], { ...git, NPM_TOKEN: registry.token })
  t.equal(cut.code, 0, cut.stderr)
  const summary = JSON.parse(await readFile(join(dir, 'out', version, 'release.json'), 'utf8')) as { package: { name: string, version: string } }
  t.match(summary.package, { name: '@media-bff/client', version })
  t.equal(await readFile(join(dir, 'out', version, 'notes.md'), 'utf8'), 'What changed.\n', 'the notes are the section')

  const packument = await request(`${registry.url}@media-bff%2fclient`)
  const published = await packument.body.json() as { 'dist-tags': Record<string, string>, versions: Record<string, { repository?: { url: string, directory: string }, homepage?: string, bugs?: unknown, license?: string }> }
  t.equal(published['dist-tags'].latest, version)
  t.match(published.versions[version], { repository: { url: repository.url, directory: 'public/client' }, homepage: /docs\/guide\/browser-module\.md$/, license: 'MIT' })

  // An app of its own: no path, no tarball, only the name and the version from the registry.
  const app = join(dir, 'app')
  await mkdir(app)
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'scratch-site', private: true, type: 'module' }))
  await exec('npm', ['install', `@media-bff/client@${version}`, '--registry', registry.url, '--cache', join(dir, 'npm-cache'), '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: app })
  const manifest = JSON.parse(await readFile(join(app, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }
  t.match(manifest.dependencies['@media-bff/client'], new RegExp(`^\\^?${version.replace(/\./g, '\\.')}$`), 'a version in package.json, not a file: path')
  const readme = await readFile(join(app, 'node_modules/@media-bff/client/README.md'), 'utf8')
  t.match(readme, /https:\/\/github\.com\/.*docs\/guide\/browser-module\.md/, 'its README links to the guide')

  await writeFile(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], noEmit: true, skipLibCheck: false } }))
  await writeFile(join(app, 'site.ts'), [
    "import { createMediaBffClient, type Access, type FolderContents, type Session } from '@media-bff/client'",
    "const bff = createMediaBffClient({ basePath: '/media-bff' })",
    'const access = bff.access()',
    'export async function start (): Promise<Access> {',
    '  const { session, scopes }: { session: Session, scopes: Record<string, Access> } = await access.check()',
    '  if (session.authenticated) console.log(session.user.name, session.scopes.join(" "))',
    '  const contents: FolderContents = await bff.folders.contents(0)',
    '  console.log(contents.files.map((file) => file.title ?? file.filename))',
    '  return scopes.upload ?? "denied"',
    '}',
    ''
  ].join('\n'))
  const checked = await exec(process.execPath, [tsc, '-p', app], { cwd: app }).then(() => 'ok', (error: { stdout: string }) => error.stdout)
  t.equal(checked, 'ok', 'the site type-checks against the published declarations')

  // The check has teeth: a wrong use of the published types fails it.
  await writeFile(join(app, 'wrong.ts'), "import type { Session } from '@media-bff/client'\nexport const session: Session = { authenticated: 'yes' }\n")
  const wrong = await exec(process.execPath, [tsc, '-p', app], { cwd: app }).then(() => 'ok', (error: { stdout: string }) => error.stdout)
  t.match(wrong, /wrong\.ts.*error TS2322/)
})

t.test('the release says in one line that there is no container engine, before it makes anything', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'media-bff-release-test-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  const changelog = join(dir, 'CHANGELOG.md')
  await writeFile(changelog, `# Changelog\n\n## ${version} (2026-11-27)\n\nWhat changed.\n`)
  const cut = await release([version, '--only', 'image', '--image', '127.0.0.1:1/media-bff', '--engine', 'no-such-container-engine', '--allow-dirty', '--changelog', changelog, '--out-dir', join(dir, 'out')])
  t.equal(cut.code, 1)
  t.equal(cut.stderr, 'release: no container engine found: no-such-container-engine is not on PATH; install docker or podman, or name one with --engine (or CONTAINER_ENGINE)\n', 'one line, no stack trace')
  t.equal(cut.stdout, '')
})

t.test('an undated section stops the release, as one marked unreleased does', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'media-bff-release-test-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  const changelog = join(dir, 'CHANGELOG.md')
  await writeFile(changelog, `# Changelog\n\n## ${version}\n\nWhat changed.\n`)
  const cut = await release([version, '--only', 'package', '--npm-registry', 'http://127.0.0.1:1/', '--allow-dirty', '--changelog', changelog, '--out-dir', join(dir, 'out')])
  t.equal(cut.code, 1)
  t.equal(cut.stderr, `release: CHANGELOG.md's section for ${version} carries no release date ("## ${version}"): write it as "## ${version} (YYYY-MM-DD)"\n`)
})

t.test('a tag of the version on another commit stops the release; on this one it goes on', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'media-bff-release-test-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  const changelog = join(dir, 'CHANGELOG.md')
  await writeFile(changelog, `# Changelog\n\n## ${version} (2026-11-27)\n\nWhat changed.\n`)
  const scratch = await scratchRepository(dir)
  const released = await scratch.commit()
  const later = await scratch.commit()
  await scratch.tag(`v${version}`, released)
  // No registry on this port: a release that gets past its checks fails to publish instead.
  const args = [version, '--only', 'package', '--npm-registry', 'http://127.0.0.1:1/', '--changelog', changelog, '--out-dir', join(dir, 'out')]
  const elsewhere = await release(args, scratch.env)
  t.equal(elsewhere.code, 1)
  t.equal(elsewhere.stderr, `release: the tag v${version} names ${released.slice(0, 12)}, not this commit (${later.slice(0, 12)})\n`)

  const here = await scratchRepository(join(dir, 'here'))
  await here.tag(`v${version}`, await here.commit())
  const onIt = await release(args, { ...here.env, NPM_TOKEN: 'no-such-token', npm_config_fetch_retries: '0' })
  t.notMatch(onIt.stderr, /names .* not this commit/, 'the tagged commit itself is released')
  t.match(onIt.stderr, /127\.0\.0\.1:1/, 'and gets as far as the registry')
})
