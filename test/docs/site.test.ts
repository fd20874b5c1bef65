// The docs site (docs/, VitePress): it builds, with no dead link between pages (VitePress fails
// the build on one); every link and #anchor of every built page, the theme's navigation included,
// leads to a page and an element on it (./site-links.ts, proved able to fail); and in Chromium the
// home page shows, and the API reference renders the OpenAPI description with Redoc, without a
// console error.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createReadStream } from 'node:fs'
import { copyFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { extname, join, normalize } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import t from 'tap'
import { describeApi } from '../../src/app.js'
import { launchChromium } from '../helpers/chromium.js'
import { brokenLinks, readSite } from './site-links.js'

const root = fileURLToPath(new URL('../../', import.meta.url))

// Built outside the repository: the built site is minified JavaScript, which the linter would
// read anywhere in it (test-artifacts/ included) if a run were killed before its teardown.
const outDir = await mkdtemp(join(tmpdir(), 'media-bff-docs-site-'))
t.teardown(async () => { await rm(outDir, { recursive: true, force: true }) })

// VitePress in a process of its own (it sets NODE_ENV and bundles with Vite), as docs:build runs
// it; then the two files docs:build puts in docs/public/ first, put straight into the output, so
// the test leaves docs/public/ as it found it.
const build = spawn(process.execPath, [join(root, 'node_modules', 'vitepress', 'bin', 'vitepress.js'), 'build', 'docs', '--outDir', outDir], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
const output: Buffer[] = []
build.stdout.on('data', (chunk: Buffer) => output.push(chunk))
build.stderr.on('data', (chunk: Buffer) => output.push(chunk))
const [code] = await once(build, 'close') as [number | null]
const buildOutput = Buffer.concat(output).toString('utf8')
await writeFile(join(outDir, 'openapi.json'), await describeApi())
await copyFile(join(root, 'node_modules', 'redoc', 'bundles', 'redoc.standalone.js'), join(outDir, 'redoc.standalone.js'))

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.woff2': 'font/woff2', '.svg': 'image/svg+xml', '.xml': 'application/xml' }

/** The built site as a static host with clean URLs serves it: /guide/deploy is guide/deploy.html. */
async function serve (request: IncomingMessage, response: ServerResponse): Promise<void> {
  const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname))
  for (const candidate of path.endsWith('/') ? [`${path}index.html`] : [path, `${path}.html`]) {
    const file = join(outDir, candidate)
    if (file.startsWith(outDir) && (await stat(file).catch(() => undefined))?.isFile() === true) {
      response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' })
      createReadStream(file).pipe(response)
      return
    }
  }
  response.writeHead(404, { 'content-type': 'text/html' }).end(await readFile(join(outDir, '404.html')))
}
const server = createServer((request, response) => {
  serve(request, response).catch((error: unknown) => { response.destroy(error as Error) })
})
server.listen(0, '127.0.0.1')
await once(server, 'listening')
t.teardown(() => { server.close() })
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

const chromium = await launchChromium()
t.teardown(chromium.close)

/**
 * A fresh page, every console error and uncaught exception it sees, and the hosts other than the
 * site it asked for. Those are answered here with an empty image, so the test needs no network:
 * Redoc's menu shows Redocly's logo from its CDN.
 */
async function open (path: string): Promise<{ page: Page, errors: string[], elsewhere: Set<string> }> {
  const page = await chromium.browser.newPage()
  page.setDefaultTimeout(30_000)
  const errors: string[] = []
  const elsewhere = new Set<string>()
  await page.route((url) => url.origin !== base, async (route) => {
    elsewhere.add(new URL(route.request().url()).host)
    await route.fulfill({ contentType: 'image/svg+xml', body: '<svg xmlns="http://www.w3.org/2000/svg"/>' })
  })
  page.on('console', (message) => { if (message.type() === 'error') errors.push(`console: ${message.text()}`) })
  page.on('pageerror', (error) => { errors.push(`page error: ${error.message}`) })
  await page.goto(`${base}${path}`)
  return { page, errors, elsewhere }
}

t.test('package.json: docs:build writes the API reference\'s files before VitePress builds', async (t) => {
  const { scripts } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  t.equal(scripts['docs:dev'], 'vitepress dev docs')
  t.match(scripts['docs:build'], /npm run openapi -- docs\/public\/openapi\.json && cp node_modules\/redoc\/bundles\/redoc\.standalone\.js docs\/public\/ && vitepress build docs$/)
})

t.test('the site builds, and VitePress finds no dead link', async (t) => {
  t.equal(code, 0, buildOutput)
  t.notMatch(buildOutput, /dead link/i)
})

t.test('every link and anchor of every page leads to a page and an element on it', async (t) => {
  const site = await readSite(outDir)
  for (const page of ['/', '/guide/quick-start', '/guide/integrate', '/guide/operate', '/reference/http-api', '/reference/api', '/reference/configuration']) {
    t.ok(site.pages.has(page), `${page} is built`)
  }
  t.same(brokenLinks(site), [], 'no broken link')
  // The emulator's page includes its README rather than copying it.
  t.match(site.pages.get('/guide/emulator'), /id="fixture-users"/, 'emulator/README.md is on the emulator\'s page')

  // The checker can fail: a page with a link to nowhere and an anchor that is not there.
  const planted = new Map(site.pages).set('/planted', '<a href="/guide/no-such-page">x</a> <a href="./guide/operate#no-such-anchor">y</a> <a href="guide/operate#alerts-and-dashboard">z</a>')
  t.same(brokenLinks({ ...site, pages: planted }), [
    '/planted: /guide/no-such-page (no such page or file)',
    '/planted: ./guide/operate#no-such-anchor (no element #no-such-anchor on /guide/operate)'
  ], 'both planted links are found, and the good one is not')
})

t.test('the home page, and a guide reached from it', async (t) => {
  const { page, errors, elsewhere } = await open('/')
  t.equal(await page.title(), 'media-bff')
  t.equal(await page.locator('.VPHero .name').innerText(), 'media-bff')
  await page.getByRole('link', { name: 'Quick start' }).first().click()
  await page.waitForURL(`${base}/guide/quick-start`)
  // Routed in the page: the guide's heading replaces the hero.
  await page.locator('.vp-doc h1', { hasText: 'Quick start' }).waitFor()
  t.equal(await page.title(), 'Quick start | media-bff')
  t.same(errors, [], 'no console error')
  t.same([...elsewhere], [], 'nothing asked of another host')
  await page.close()
})

t.test('the API reference renders the OpenAPI description', async (t) => {
  const description = JSON.parse(await describeApi()) as { paths: Record<string, Record<string, { summary?: string }>> }
  const register = description.paths['/uploads/register']?.post?.summary ?? ''
  t.ok(register, 'POST /uploads/register has a summary')
  const { page, errors, elsewhere } = await open('/reference/api')
  t.equal(await page.title(), 'API reference | media-bff')
  // Redoc's heading of the operation, and its method and path.
  await page.locator('h2', { hasText: register }).first().waitFor()
  await page.locator('.api-reference', { hasText: '/uploads/register' }).waitFor()
  t.equal(await page.locator('.api-reference-failure').count(), 0, 'no failure shown')
  t.same(errors, [], 'no console error')
  t.same([...elsewhere].filter((host) => host !== 'cdn.redoc.ly'), [], 'nothing asked of another host but Redocly\'s logo')
  await page.close()
})
