// A real image registry on loopback (Debian's docker-registry, the CNCF distribution registry),
// empty, removed with the test: for a release's image (`npm run test:container`) and its
// signature and attestation (test/release/signature.test.ts).
import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { request } from 'undici'
import { freePort } from './ports.js'
import { requireProgram } from './programs.js'
import { stopChild } from './child-process.js'

/** Starts one; resolves to its host:port once it answers. */
export async function startImageRegistry (t: Test): Promise<{ host: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'media-bff-registry-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  const port = await freePort()
  await writeFile(join(dir, 'config.yml'), [
    'version: 0.1',
    'log: { level: error }',
    `storage: { filesystem: { rootdirectory: ${join(dir, 'storage')} } }`,
    `http: { addr: "127.0.0.1:${port}" }`,
    ''
  ].join('\n'))
  const registry = spawn(requireProgram('docker-registry'), ['serve', join(dir, 'config.yml')], { stdio: 'ignore' })
  t.teardown(async () => { await stopChild(registry) })
  for (let tries = 0; ; tries++) {
    const answer = await request(`http://127.0.0.1:${port}/v2/`).catch(() => undefined)
    await answer?.body.dump()
    if (answer?.statusCode === 200) break
    if (tries > 100) throw new Error('docker-registry did not start')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return { host: `127.0.0.1:${port}` }
}
