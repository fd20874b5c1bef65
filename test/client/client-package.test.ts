// `npm run pack:client` (public/client/package/pack.ts): the tarball of @media-bff/client keeps
// what its manifest promises once installed with npm from the path it printed: ES module only,
// `exports` whose `types` and `default` exist and resolve (in Node, and for TypeScript with
// moduleResolution bundler and nodenext), no dependencies of any kind, `sideEffects: false`,
// media-bff's own version, and the very module media-bff serves. A TypeScript consumer compiles
// against the packed declarations, holding the session store as React's useSyncExternalStore,
// a Svelte store and a Vue ref take it, and switching on a SignInError's code.
import { execFile } from 'node:child_process'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { isAbsolute, join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { clientModuleDir } from '../../plugins/client-module.js'
import { packAndInstallClient, repoRoot } from '../helpers/client-package.js'

const run = promisify(execFile)
const client = await packAndInstallClient(t)
const { installed, project } = client
const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as Record<string, unknown>
const server = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as { version: string, license: string }

t.test('npm run pack:client prints the tarball\'s path last; npm installs the package from it', async (t) => {
  t.ok(isAbsolute(client.tarball), `an absolute path: ${client.tarball}`)
  t.match(client.tarball, /[/\\]media-bff-client-\d+\.\d+\.\d+\.tgz$/)
  t.same((await readdir(installed)).sort(), ['LICENSE', 'README.md', 'media-bff-client.d.ts', 'media-bff-client.js', 'package.json'], 'the module, its declarations, the manifest, README and licence; nothing else')
})

t.test('the manifest: ESM, exports with types and default, no dependencies, no side effects, media-bff\'s version', async (t) => {
  t.match(manifest, { name: '@media-bff/client', version: server.version, license: server.license, type: 'module', sideEffects: false })
  t.same(manifest.exports, { '.': { types: './media-bff-client.d.ts', default: './media-bff-client.js' }, './package.json': './package.json' })
  t.equal(Object.keys((manifest.exports as Record<string, object>)['.'] ?? {})[0], 'types', '`types` first: TypeScript takes the first condition that matches')
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'bundleDependencies', 'bundledDependencies', 'scripts']) t.notOk(field in manifest, `no ${field}`)
  const module = await readFile(join(installed, 'media-bff-client.js'), 'utf8')
  t.match(module, /^export \{[^}]*\bcreateMediaBffClient\b[^}]*\};?\s*$/m, 'an ES module\'s exports')
  t.notMatch(module, /\brequire\s*\(|\bmodule\.exports\b/, 'no CommonJS')
  t.same([...module.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm)].map((match) => match[1]), [], 'imports nothing: the module is one file')
  t.equal(module, await readFile(join(clientModuleDir, 'media-bff-client.js'), 'utf8'), 'the module media-bff serves, byte for byte (after npm run build:client)')
  t.equal(await readFile(join(installed, 'media-bff-client.d.ts'), 'utf8'), await readFile(join(clientModuleDir, 'media-bff-client.d.ts'), 'utf8'), 'and its declarations')
})

t.test('Node resolves the package through its exports, and importing it does nothing but define it', async (t) => {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', `
    const module = await import('@media-bff/client')
    const manifest = await import('@media-bff/client/package.json', { with: { type: 'json' } })
    console.log(JSON.stringify({ names: Object.keys(module).sort(), version: manifest.default.version, resolved: import.meta.resolve('@media-bff/client') }))
  `], { cwd: project })
  const answer = JSON.parse(stdout) as { names: string[], version: string, resolved: string }
  t.same(answer.names, ['MediaBffError', 'SCOPES', 'SignInError', 'createMediaBffClient', 'createSessionStore', 'readSignInError', 'safeHttpUrl', 'uploadFile'])
  t.equal(answer.version, server.version)
  t.match(answer.resolved, /\/node_modules\/@media-bff\/client\/media-bff-client\.js$/)
})

const CONSUMER = `// A site's code, against the packed declarations only.
import { createMediaBffClient, createSessionStore, MediaBffError, readSignInError, type Session, type SessionStore, type SignInErrorCode } from '@media-bff/client'
import type { Readable } from 'svelte/store'
import { shallowRef, type ShallowRef } from 'vue'

/** React's own declaration of the hook (react's index.d.ts), which a site gets from @types/react. */
declare function useSyncExternalStore<Snapshot> (subscribe: (onStoreChange: () => void) => () => void, getSnapshot: () => Snapshot, getServerSnapshot?: () => Snapshot): Snapshot

const bff = createMediaBffClient({ baseUrl: 'https://site.example', basePath: '/media-bff', tenant: 'north' })
const session: SessionStore = createSessionStore(bff)
export const current: Session | undefined = useSyncExternalStore(session.subscribe, session.getSnapshot, session.getServerSnapshot)
export const asSvelteStore: Readable<Session | undefined> = session
export const asVueRef: ShallowRef<Session | undefined> = shallowRef(session.getSnapshot())
session.subscribe((value) => { asVueRef.value = value })()
bff.signIn({ tenant: 'south', scope: 'upload' })

export function explain (): string {
  const error = readSignInError(undefined, { removeFromAddressBar: true })
  if (error === undefined) return ''
  const base: MediaBffError = error
  switch (error.code) {
    case 'access_denied': return 'cancelled'
    case 'unknown': return String(base.details.reported)
    default: return error.message
  }
}
// @ts-expect-error not a code media-bff sends back: the union is closed
export const notACode: SignInErrorCode = 'no_such_code'
// @ts-expect-error the store's snapshot is a Session, not anything
export const notASession: number = session.getSnapshot()
`

for (const resolution of ['bundler', 'nodenext'] as const) {
  t.test(`a TypeScript consumer compiles against the packed types (moduleResolution ${resolution})`, async (t) => {
    const config = join(project, `tsconfig.${resolution}.json`)
    await writeFile(join(project, 'consumer.ts'), CONSUMER)
    await writeFile(config, JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'ES2022',
        lib: ['ES2023', 'DOM'],
        module: resolution === 'bundler' ? 'ESNext' : 'NodeNext',
        moduleResolution: resolution,
        verbatimModuleSyntax: true,
        // Only what the consumer imports: not the checkout's @types/node above it.
        types: [],
        // The packed declarations are checked themselves, not only used.
        skipLibCheck: false
      },
      files: ['consumer.ts']
    }))
    const compiled = await run(process.execPath, [join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', config, '--traceResolution'], { cwd: project }).catch((error: { stdout: string }) => ({ stdout: error.stdout, failed: true }))
    const problems = compiled.stdout.split('\n').filter((line) => line.includes('error TS'))
    t.same(problems, [], 'no type errors, and both @ts-expect-error lines are errors indeed')
    t.match(compiled.stdout, /Module name '@media-bff\/client' was successfully resolved to '[^']*node_modules\/@media-bff\/client\/media-bff-client\.d\.ts'/, 'resolved through the package\'s types')
    t.notOk('failed' in compiled, 'tsc exited 0')
  })
}

t.test('the consumer check can fail: a call the declarations do not allow is an error', async (t) => {
  await writeFile(join(project, 'wrong.ts'), "import { createSessionStore } from '@media-bff/client'\ncreateSessionStore({})\n")
  const config = join(project, 'tsconfig.wrong.json')
  await writeFile(config, JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'ESNext', moduleResolution: 'bundler', lib: ['ES2023', 'DOM'], types: [] }, files: ['wrong.ts'] }))
  const failed = await run(process.execPath, [join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', config], { cwd: project }).then(() => '', (error: { stdout: string }) => error.stdout)
  t.match(failed, /wrong\.ts\(2,\d+\): error TS2345/, 'an object without watchSession is refused')
})
