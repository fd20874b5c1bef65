// The browser module as media-bff serves it (plugins/client-module.ts): the stable path serves
// the current module itself, revalidated by its ETag; the versioned files cached for good, typed
// right, open to pages on any origin; a version another replica serves (a rolling upgrade) sends
// the page to the stable path; the version follows the files' content.
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
const FILES = [['media-bff-client.js', 'text/javascript; charset=utf-8'], ['media-bff-client.d.ts', 'text/plain; charset=utf-8']] as const

t.test('the stable path serves the current module itself, asked again each time (ETag)', async (t) => {
  for (const [file, type] of FILES) {
    const stable = await request(`${url}/client/${file}`, { headers: { origin: 'https://any-site.example' } })
    t.equal(stable.statusCode, 200, file)
    t.equal(stable.headers['content-type'], type)
    t.equal(stable.headers['cache-control'], 'no-cache', 'revalidated every time, so a new release is seen at once')
    t.equal(stable.headers['access-control-allow-origin'], '*', 'any page may import it')
    t.equal(stable.headers['x-content-type-options'], 'nosniff')
    t.equal(await stable.body.text(), await readFile(`${clientModuleDir}${file}`, 'utf8'), 'the built file itself')
    const etag = String(stable.headers.etag)
    t.match(etag, /^"\d+\.\d+\.\d+-[0-9a-f]{10}"$/)
    const again = await request(`${url}/client/${file}`, { headers: { 'if-none-match': etag } })
    t.equal(again.statusCode, 304, 'unchanged: nothing sent again')
    t.equal(await again.body.text(), '')
  }
})

t.test('the versioned files are cached for good', async (t) => {
  const version = String((await request(`${url}/client/media-bff-client.js`)).headers.etag).replaceAll('"', '')
  for (const [file, type] of FILES) {
    const versioned = await request(`${url}/client/${version}/${file}`, { headers: { origin: 'https://any-site.example' } })
    const body = await versioned.body.text()
    t.equal(versioned.statusCode, 200, file)
    t.equal(versioned.headers['content-type'], type)
    t.equal(versioned.headers['cache-control'], 'public, max-age=31536000, immutable')
    t.equal(versioned.headers['access-control-allow-origin'], '*')
    t.equal(versioned.headers['cross-origin-resource-policy'], 'cross-origin')
    t.equal(body, await readFile(`${clientModuleDir}${file}`, 'utf8'))
  }
})

t.test('a version this replica does not hold (another replica\'s, mid-upgrade): its current module, uncached, never a redirect', async (t) => {
  for (const version of ['0.0.1-0123456789', '9.9.9-0000000000', '1.2.3-rc.1-abcdef0123']) {
    for (const [file, type] of FILES) {
      const answer = await request(`${url}/client/${version}/${file}`, { headers: { origin: 'https://any-site.example' } })
      t.equal(answer.statusCode, 200, `${version}/${file}`)
      t.equal(answer.headers['content-type'], type)
      t.equal(answer.headers['cache-control'], 'no-store', 'asked again: a replica holding that version may answer next time')
      t.equal(answer.headers['access-control-allow-origin'], '*', 'a page importing it in CORS mode may use it')
      t.equal(await answer.body.text(), await readFile(`${clientModuleDir}${file}`, 'utf8'))
    }
  }
})

t.test('anything else is the contract\'s 404, naming the current module', async (t) => {
  const version = String((await request(`${url}/client/media-bff-client.js`)).headers.etag).replaceAll('"', '')
  const inherited = ['toString', 'constructor', '__proto__', 'hasOwnProperty'].flatMap((name) => [`/client/${name}`, `/client/${version}/${name}`])
  for (const path of ['/client/other.js', '/client/latest/media-bff-client.js', '/client/x/media-bff-client.mjs', `/client/${version}/other.js`, ...inherited]) {
    const answer = await request(`${url}${path}`)
    const body = await answer.body.json() as { error: string, message: string }
    t.equal(answer.statusCode, 404, path)
    t.equal(body.error, 'not_found')
    t.match(body.message, /\/client\/media-bff-client\.js/)
  }
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
