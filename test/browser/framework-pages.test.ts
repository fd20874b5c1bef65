// The session store in the three UI framework styles, in real Chromium: one small page each
// (test/browser/examples/frameworks/), React with useSyncExternalStore, Vue with a ref set from
// subscribe, a compiled Svelte component with `$session`, built as a site builds them: the real
// frameworks (the checkout's dev dependencies) and @media-bff/client installed from the tarball
// `npm run pack:client` wrote, bundled by esbuild. Each page runs on a port of its own, an origin
// media-bff lists in ALLOWED_ORIGINS, and shows the person signed out, then signed in (after the
// emulator's consent) with their name, then signed out again. The React page first has its
// sign-in cancelled: it shows readSignInError's message and the address bar loses auth_error.
import { createServer } from 'node:http'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { build, type Plugin } from 'esbuild'
import { compile } from 'svelte/compiler'
import type { Page } from 'playwright-core'
import { startStack } from '../helpers/bff.js'
import { packAndInstallClient } from '../helpers/client-package.js'
import { freePort } from '../helpers/ports.js'
import { consentAs, followToConsent } from './demo-steps.js'
import { openDemoBrowser } from './demo-run.js'

const examples = fileURLToPath(new URL('./examples/frameworks/', import.meta.url))
const PAGES = { react: 'react.jsx', vue: 'vue.js', svelte: 'svelte.js' } as const
type Framework = keyof typeof PAGES

/** What a Svelte site's bundler plugin does: each .svelte file compiled to JavaScript. */
const svelteComponents: Plugin = {
  name: 'svelte',
  setup (build) {
    build.onLoad({ filter: /\.svelte$/ }, async ({ path }) => ({
      contents: compile(await readFile(path, 'utf8'), { filename: path, generate: 'client' }).js.code,
      loader: 'js'
    }))
  }
}

/** Each page's script, as the site's bundler makes it, with @media-bff/client from the installed tarball. */
async function bundlePages (nodeModules: string): Promise<Record<Framework, string>> {
  const bundles = {} as Record<Framework, string>
  for (const [framework, entry] of Object.entries(PAGES) as Array<[Framework, string]>) {
    const result = await build({
      entryPoints: [join(examples, entry)],
      bundle: true,
      format: 'esm',
      target: 'es2022',
      write: false,
      logLevel: 'warning',
      jsx: 'automatic',
      nodePaths: [nodeModules],
      plugins: [svelteComponents],
      define: { 'process.env.NODE_ENV': '"production"', __VUE_OPTIONS_API__: 'false', __VUE_PROD_DEVTOOLS__: 'false', __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false' }
    })
    bundles[framework] = result.outputFiles[0]?.text ?? ''
  }
  return bundles
}

const [installed, sitePort] = await Promise.all([packAndInstallClient(t), freePort()])
const siteUrl = `http://127.0.0.1:${sitePort}`
const bundles = await bundlePages(join(installed.project, 'node_modules'))
const stack = await startStack({ env: { ALLOWED_ORIGINS: siteUrl } })
t.teardown(stack.close)
const { bff, emulator } = stack

const site = createServer((request, response) => {
  const [, framework, kind] = /^\/(react|vue|svelte)\.(html|js)(?:\?|$)/.exec(request.url ?? '') ?? []
  if (framework === undefined) {
    response.writeHead(404).end()
    return
  }
  const body = kind === 'js'
    ? bundles[framework as Framework]
    : `<!doctype html>\n<html lang="en" data-media-bff="${bff.url}"><head><meta charset="utf-8"><title>${framework}</title>` +
      `<script type="module" src="/${framework}.js"></script></head><body><div id="app"></div></body></html>`
  response.writeHead(200, { 'content-type': `${kind === 'js' ? 'text/javascript' : 'text/html'}; charset=utf-8`, 'cache-control': 'no-store' }).end(body)
})
await new Promise<void>((resolve) => site.listen(sitePort, '127.0.0.1', resolve))
t.teardown(async () => { await new Promise((resolve) => site.close(resolve)) })

/** How many times the page asked media-bff for the session (GET /auth/session). */
function countSessionChecks (page: Page): () => number {
  let checks = 0
  page.on('request', (request) => { if (request.method() === 'GET' && request.url() === `${bff.url}/auth/session`) checks++ })
  return () => checks
}

for (const framework of Object.keys(PAGES) as Framework[]) {
  t.test(`${framework}: signed out, sign in, the name shown, sign out`, async (t) => {
    const { page, problems } = await openDemoBrowser(t)
    const pageUrl = `${siteUrl}/${framework}.html`
    await page.goto(pageUrl)
    await page.locator('#sign-in').waitFor()
    t.equal(await page.textContent('#auth-error'), '', 'no failed sign-in to tell of')

    if (framework === 'react') {
      await followToConsent(page, '#sign-in', emulator.baseUrl)
      await consentAs(page, siteUrl, 'alice', 'deny')
      await page.locator('#sign-in').waitFor()
      t.match(await page.textContent('#auth-error'), /^Sign-in was cancelled\./, 'readSignInError: the cancelled sign-in told')
      t.equal(page.url(), pageUrl, 'and auth_error taken out of the address bar')
    }

    await followToConsent(page, '#sign-in', emulator.baseUrl)
    const checks = countSessionChecks(page)
    await consentAs(page, siteUrl, 'alice')
    t.equal(page.url(), pageUrl, 'back on the page')
    await page.locator('#name').waitFor()
    t.equal(await page.textContent('#name'), 'Alice Example', 'signed in: the name shown')
    t.equal(await page.textContent('#auth-error'), '')
    t.equal(checks(), 1, 'the page asked media-bff once, however its components subscribed')

    await page.click('#sign-out')
    await page.locator('#sign-in').waitFor()
    t.equal(await page.locator('#name').count(), 0, 'signed out: the sign-in button again, the name gone')
    t.equal(checks(), 1, 'told by the sign-out itself, without asking again')
    const answer = await page.evaluate(async (url) => await (await fetch(`${url}/auth/session`, { credentials: 'include' })).json() as { authenticated: boolean }, bff.url)
    t.equal(answer.authenticated, false, 'media-bff agrees')
    t.same(problems, [], 'no script errors')
  })
}
