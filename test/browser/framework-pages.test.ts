// The session store in the three UI framework styles, in real Chromium: one small page each
// (test/browser/examples/frameworks/), React with useSyncExternalStore, Vue with a ref set from
// subscribe, a compiled Svelte component with `$session`, built as a site builds them: the real
// frameworks (the checkout's dev dependencies) and @media-bff/client, bundled by esbuild. The
// package is the module media-bff serves, byte for byte (test/client/client-package.test.ts packs
// and installs it and shows so), so the pages take that file as the package: packing it again here
// would only double the suite's slowest step. Each page shows the person signed out, then
// signed in (after the emulator's consent) with their name, then signed out again; the React page
// first has its sign-in cancelled: readSignInError's message, and auth_error gone from the
// address bar. All of it twice: with media-bff on an origin of its own (the pages' port is in its
// ALLOWED_ORIGINS; `baseUrl`), and with media-bff under /media-bff of the pages' own origin
// (BASE_PATH; `basePath` alone), where the site's server passes /media-bff/ on to it as a reverse
// proxy would, and the pages ask nothing of their origin outside that path but themselves.
import { createServer, request as forward, type Server } from 'node:http'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { build, type Plugin } from 'esbuild'
import { compile } from 'svelte/compiler'
import { startStack } from '../helpers/bff.js'
import { clientModuleDir } from '../../plugins/client-module.js'
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

/** Each page's script, as the site's bundler makes it, @media-bff/client being the module media-bff serves. */
async function bundlePages (): Promise<Record<Framework, string>> {
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
      alias: { '@media-bff/client': join(clientModuleDir, 'media-bff-client.js') },
      plugins: [svelteComponents],
      define: { 'process.env.NODE_ENV': '"production"', __VUE_OPTIONS_API__: 'false', __VUE_PROD_DEVTOOLS__: 'false', __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false' }
    })
    bundles[framework] = result.outputFiles[0]?.text ?? ''
  }
  return bundles
}

const bundles = await bundlePages()
const BASE_PATH = '/media-bff'

/**
 * The site: the example pages, each with where media-bff is on its <html>, and, when media-bff
 * lives under BASE_PATH of the site's origin, that path passed on to it.
 */
async function serveSite (port: number, where: { mediaBff?: string, basePath?: string }, proxyTo?: string): Promise<Server> {
  const attributes = Object.entries({ 'data-media-bff': where.mediaBff, 'data-base-path': where.basePath })
    .filter(([, value]) => value !== undefined).map(([name, value]) => ` ${name}="${value ?? ''}"`).join('')
  const site = createServer((request, response) => {
    const url = request.url ?? '/'
    if (proxyTo !== undefined && url.startsWith(`${BASE_PATH}/`)) {
      const upstream = forward(`${proxyTo}${url}`, { method: request.method, headers: request.headers }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(response)
      })
      upstream.on('error', () => { response.destroy() })
      request.pipe(upstream)
      return
    }
    const [, framework, kind] = /^\/(react|vue|svelte)\.(html|js)(?:\?|$)/.exec(url) ?? []
    if (framework === undefined) {
      response.writeHead(404).end()
      return
    }
    const body = kind === 'js'
      ? bundles[framework as Framework]
      : `<!doctype html>\n<html lang="en"${attributes}><head><meta charset="utf-8"><title>${framework}</title>` +
        `<script type="module" src="/${framework}.js"></script></head><body><div id="app"></div></body></html>`
    response.writeHead(200, { 'content-type': `${kind === 'js' ? 'text/javascript' : 'text/html'}; charset=utf-8`, 'cache-control': 'no-store' }).end(body)
  })
  await new Promise<void>((resolve) => site.listen(port, '127.0.0.1', resolve))
  return site
}

const deployments = [
  { name: 'media-bff on an origin of its own', sameOrigin: false },
  { name: `media-bff under ${BASE_PATH} of the site's origin`, sameOrigin: true }
] as const

for (const { name, sameOrigin } of deployments) {
  t.test(name, async (t) => {
    const sitePort = await freePort()
    const siteUrl = `http://127.0.0.1:${sitePort}`
    const stack = sameOrigin
      ? await startStack({ publicUrl: siteUrl, env: { BASE_PATH } })
      : await startStack({ env: { ALLOWED_ORIGINS: siteUrl } })
    t.teardown(stack.close)
    const { bff, emulator } = stack
    /** Where the pages reach media-bff. */
    const bffAddress = sameOrigin ? `${siteUrl}${BASE_PATH}` : bff.url
    const site = await serveSite(sitePort, sameOrigin ? { basePath: BASE_PATH } : { mediaBff: bff.url }, sameOrigin ? bff.url : undefined)
    t.teardown(async () => {
      site.closeAllConnections()
      await new Promise((resolve) => site.close(resolve))
    })

    for (const framework of Object.keys(PAGES) as Framework[]) {
      t.test(`${framework}: signed out, sign in, the name shown, sign out`, async (t) => {
        const { page, problems } = await openDemoBrowser(t)
        const pageUrl = `${siteUrl}/${framework}.html`
        const fromSite: string[] = []
        page.on('request', (request) => { if (request.url().startsWith(`${siteUrl}/`)) fromSite.push(new URL(request.url()).pathname) })
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
        let checks = 0
        page.on('request', (request) => { if (request.method() === 'GET' && request.url() === `${bffAddress}/auth/session`) checks++ })
        await consentAs(page, siteUrl, 'alice')
        t.equal(page.url(), pageUrl, 'back on the page')
        await page.locator('#name').waitFor()
        t.equal(await page.textContent('#name'), 'Alice Example', 'signed in: the name shown')
        t.equal(await page.textContent('#auth-error'), '')
        t.equal(checks, 1, 'the page asked media-bff once, however its components subscribed')

        await page.click('#sign-out')
        await page.locator('#sign-in').waitFor()
        t.equal(await page.locator('#name').count(), 0, 'signed out: the sign-in button again, the name gone')
        t.equal(checks, 1, 'told by the sign-out itself, without asking again')
        const answer = await page.evaluate(async (url) => await (await fetch(`${url}/auth/session`, { credentials: 'include', headers: { 'x-csrf': '1' } })).json() as { authenticated: boolean }, bffAddress)
        t.equal(answer.authenticated, false, 'media-bff agrees')
        if (sameOrigin) {
          const outside = fromSite.filter((path) => !path.startsWith(`${BASE_PATH}/`) && path !== `/${framework}.html` && path !== `/${framework}.js`)
          t.same(outside, [], `nothing asked of the site outside ${BASE_PATH} but the page and its script`)
          t.ok(fromSite.includes(`${BASE_PATH}/auth/logout`), 'the sign-out went under the path')
        }
        t.same(problems, [], 'no script errors')
      })
    }
  })
}
