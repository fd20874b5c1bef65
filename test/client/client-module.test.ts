// The browser module as media-bff serves it (plugins/client-module.ts): a redirect from the
// stable path to the current version, the versioned files cached for good, typed right, open to
// pages on any origin; the version follows the files' content.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { request } from 'undici'
import { startStack } from '../helpers/bff.js'
import { clientModuleDir, readClientModule } from '../../plugins/client-module.js'

const stack = await startStack()
t.teardown(stack.close)
const { url } = stack.bff

t.test('the stable path redirects to the current version; the versioned files are cached for good', async (t) => {
  for (const [file, type] of [['media-bff-client.js', 'text/javascript; charset=utf-8'], ['media-bff-client.d.ts', 'text/plain; charset=utf-8']] as const) {
    const stable = await request(`${url}/client/${file}`)
    await stable.body.dump()
    t.equal(stable.statusCode, 302, file)
    t.equal(stable.headers['cache-control'], 'no-cache', 'the redirect is asked again every time')
    t.equal(stable.headers['access-control-allow-origin'], '*', 'any page may follow it')
    const location = String(stable.headers.location)
    t.match(location, new RegExp(`^/client/\\d+\\.\\d+\\.\\d+-[0-9a-f]{10}/${file.replace('.', '\\.')}$`))
    const versioned = await request(`${url}${location}`, { headers: { origin: 'https://any-site.example' } })
    const body = await versioned.body.text()
    t.equal(versioned.statusCode, 200)
    t.equal(versioned.headers['content-type'], type)
    t.equal(versioned.headers['cache-control'], 'public, max-age=31536000, immutable')
    t.equal(versioned.headers['access-control-allow-origin'], '*', 'any page may import it')
    t.equal(versioned.headers['cross-origin-resource-policy'], 'cross-origin')
    t.equal(versioned.headers['x-content-type-options'], 'nosniff')
    t.equal(body, await readFile(`${clientModuleDir}${file}`, 'utf8'), 'the built file itself')
  }
})

t.test('another version or another file is the contract\'s 404, naming the current module', async (t) => {
  const current = String((await request(`${url}/client/media-bff-client.js`)).headers.location).split('/')[2] ?? ''
  const inherited = ['toString', 'constructor', '__proto__', 'hasOwnProperty'].flatMap((name) => [`/client/${name}`, `/client/${current}/${name}`])
  for (const path of ['/client/0.0.1-0123456789/media-bff-client.js', '/client/other.js', '/client/latest/media-bff-client.js', '/client/x/media-bff-client.mjs', ...inherited]) {
    const answer = await request(`${url}${path}`)
    const body = await answer.body.json() as { error: string, message: string }
    t.equal(answer.statusCode, 404, path)
    t.equal(body.error, 'not_found')
  }
  const answer = await request(`${url}/client/9.9.9-0000000000/media-bff-client.js`)
  t.match((await answer.body.json() as { message: string }).message, /\/client\/\d+\.\d+\.\d+-[0-9a-f]{10}\/media-bff-client\.js/)
})

t.test('the version changes with the files, and a missing build says what to run', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'media-bff-client-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  await writeFile(join(dir, 'media-bff-client.js'), 'export const a = 1\n')
  await writeFile(join(dir, 'media-bff-client.d.ts'), 'export declare const a: number\n')
  const first = await readClientModule(`${dir}/`)
  await writeFile(join(dir, 'media-bff-client.js'), 'export const a = 2\n')
  const second = await readClientModule(`${dir}/`)
  t.not(first.version, second.version)
  t.equal(first.version.split('-')[0], second.version.split('-')[0], 'the package version leads both')
  await rm(join(dir, 'media-bff-client.d.ts'))
  await t.rejects(readClientModule(`${dir}/`), /run `npm run build` first/)
})
