// The browser module's package, @media-bff/client: packed as `npm run pack:client` packs it, and
// published to the npm registry given, with the token NPM_TOKEN holds (none: the registry takes
// anonymous publishing, as a local one may), and provenance when asked (a CI host that can sign
// it: GitHub Actions with id-token: write).
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { run } from './run.js'

export interface PublishedPackage { name: string, version: string, tarball: string, registry: string }

export async function packClient (root: string, outDir: string): Promise<{ name: string, version: string, tarball: string }> {
  const printed = (await run('npx', ['tsx', 'public/client/package/pack.ts', '--out-dir', outDir], { cwd: root })).split('\n')
  const [nameAndVersion = ''] = (printed.at(-2) ?? '').split(':')
  const at = nameAndVersion.lastIndexOf('@')
  return { name: nameAndVersion.slice(0, at), version: nameAndVersion.slice(at + 1), tarball: printed.at(-1) ?? '' }
}

export async function publishPackage (tarball: string, options: { registry: string, version: string, provenance: boolean, token: string | undefined }): Promise<void> {
  const registry = new URL(options.registry)
  // The token goes into a file of its own for this one command, never onto a command line.
  const dir = await mkdtemp(join(tmpdir(), 'media-bff-release-'))
  try {
    const userconfig = join(dir, 'npmrc')
    const scope = `//${registry.host}${registry.pathname.replace(/\/?$/, '/')}`
    await writeFile(userconfig, options.token === undefined ? '' : `${scope}:_authToken=\${NPM_TOKEN}\n`, { mode: 0o600 })
    // A prerelease never becomes what `npm install @media-bff/client` takes.
    const tag = options.version.includes('-') ? 'next' : 'latest'
    await run('npm', ['publish', tarball, '--registry', registry.href, '--access', 'public', '--tag', tag, '--userconfig', userconfig, ...(options.provenance ? ['--provenance'] : [])], {
      env: { ...process.env, ...(options.token === undefined ? {} : { NPM_TOKEN: options.token }) }
    })
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
