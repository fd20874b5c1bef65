// A real npm registry on loopback for a test: verdaccio (a dev dependency), with its storage in a
// scratch directory, nothing proxied from anywhere, and one user whose token publishes.
import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'
import { request } from 'undici'
import { freePort } from './ports.js'
import { stopChild } from './child-process.js'

const verdaccio = fileURLToPath(new URL('../../node_modules/verdaccio/bin/verdaccio', import.meta.url))

export interface NpmRegistry {
  /** With its trailing slash, as npm writes registries. */
  url: string
  /** A publishing user's token. */
  token: string
}

export async function startNpmRegistry (t: Test): Promise<NpmRegistry> {
  const dir = await mkdtemp(join(tmpdir(), 'media-bff-npm-registry-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  const config = join(dir, 'config.yaml')
  await writeFile(config, [
    `storage: ${join(dir, 'storage')}`,
    'auth:',
    '  htpasswd:',
    `    file: ${join(dir, 'htpasswd')}`,
    '    max_users: 1',
    // No uplinks: a package not published here is not found, and nothing reaches beyond loopback.
    'packages:',
    "  '@media-bff/*':",
    '    access: $all',
    '    publish: $authenticated',
    "  '**':",
    '    access: $all',
    'web:',
    '  enable: false',
    'log: { type: stdout, format: json, level: error }',
    ''
  ].join('\n'))
  const port = await freePort()
  const child = spawn(process.execPath, [verdaccio, '--config', config, '--listen', `127.0.0.1:${port}`], { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
  t.teardown(async () => { await stopChild(child) })
  const url = `http://127.0.0.1:${port}/`
  const deadline = Date.now() + 30_000
  for (;;) {
    const ping = await request(`${url}-/ping`).catch(() => undefined)
    await ping?.body.dump()
    if (ping?.statusCode === 200) break
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`verdaccio did not start:\n${output}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  // npm adduser's own request: the first user of the htpasswd file is created and gets a token.
  const user = await request(`${url}-/user/org.couchdb.user:release`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'release', password: 'release-password-0123456789' })
  })
  const { token } = await user.body.json() as { token?: string }
  if (user.statusCode !== 201 || token === undefined) throw new Error(`verdaccio made no user (${user.statusCode})`)
  return { url, token }
}
