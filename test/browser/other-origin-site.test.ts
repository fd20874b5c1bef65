// A website on another origin adopts media-bff: `npm start`'s server (dist/src/dev.js: media-bff
// and the emulator), a page on another local port that imports the browser module from
// media-bff, signs in, is asked for the upload permission, and uploads, in real Chromium. The
// page's script is the example of docs/guide/integrate.md ("An example on another origin",
// test/browser/examples/site.js), with media-bff's address put in for the example's.
import { spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { freePort } from '../helpers/ports.js'
import { stopChild, waitForOutput } from '../helpers/child-process.js'
import { consentAs } from './demo-steps.js'
import { openDemoBrowser } from './demo-run.js'
import { serveExampleSite } from './example-site.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const EXAMPLE_ORIGIN = 'https://media.example.org'

t.test('a page on another port imports the module from media-bff, signs in and uploads', async (t) => {
  const [bffPort, sitePort, apiPort, uploadPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()])
  const bffUrl = `http://127.0.0.1:${bffPort}`
  const siteUrl = `http://127.0.0.1:${sitePort}`

  // What `npm start` runs once it has built: nothing configured but the site's origin.
  const bff = spawn(process.execPath, ['dist/src/dev.js'], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      PORT: String(bffPort),
      PUBLIC_URL: bffUrl,
      ALLOWED_ORIGINS: siteUrl,
      EMULATOR_API_PORT: String(apiPort),
      EMULATOR_UPLOAD_PORT: String(uploadPort),
      EMULATOR_CORS_ORIGINS: `${bffUrl},${siteUrl}`
    },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  t.teardown(async () => { await stopChild(bff, 'SIGKILL') })
  await waitForOutput(bff, (out) => out.includes('media-bff demo is running'), 60_000)

  // The website: its page and the guide's script, on an origin of its own.
  const script = (await readFile(new URL('./examples/site.js', import.meta.url), 'utf8')).replaceAll(EXAMPLE_ORIGIN, bffUrl)
  const page = await readFile(new URL('./examples/site.html', import.meta.url), 'utf8')
  await serveExampleSite(t, sitePort, { page, script })

  const { page: tab, problems } = await openDemoBrowser(t)
  const imported: string[] = []
  tab.on('response', (response) => { if (response.url().includes('/client/')) imported.push(`${response.status()} ${response.url()}`) })
  await tab.goto(`${siteUrl}/?folder=home#uploads`)
  await tab.waitForSelector('#sign-in:not([hidden])')
  t.match(imported.join('\n'), new RegExp(`^200 ${bffUrl}/client/media-bff-client\\.js$`), 'the module came from media-bff, at its stable path')

  await Promise.all([tab.waitForURL((url) => url.href.startsWith(`http://127.0.0.1:${apiPort}/`)), tab.click('#sign-in')])
  await consentAs(tab, siteUrl, 'alice')
  t.equal(tab.url(), `${siteUrl}/?folder=home#uploads`, 'back on the page, at its very place')
  await tab.waitForSelector('#sign-in[hidden]', { state: 'attached' })

  const files = [{ name: 'one.txt', mimeType: 'text/plain', buffer: Buffer.from('first file\n') }, { name: 'two.txt', mimeType: 'text/plain', buffer: Buffer.from('second file\n') }]
  await tab.setInputFiles('#files', files)
  // The upload permission is not granted yet: follow() takes the person to consent, and back.
  await Promise.all([tab.waitForURL((url) => url.href.startsWith(`http://127.0.0.1:${apiPort}/`)), tab.click('#upload')])
  await consentAs(tab, siteUrl, 'alice')
  t.equal(tab.url(), `${siteUrl}/?folder=home#uploads`)
  await tab.waitForSelector('#sign-in[hidden]', { state: 'attached' })
  await tab.setInputFiles('#files', files)
  await tab.click('#upload')
  await tab.waitForFunction(() => document.querySelector('#status')?.textContent?.startsWith('Uploaded') === true)
  const status = await tab.textContent('#status') ?? ''
  t.match(status, /^Uploaded 2 file\(s\): /)
  // Uploaded side by side: in either order.
  t.same(status.replace(/^.*: /, '').split(', ').sort(), ['one', 'two'], 'titled after their names')
  t.equal(await tab.evaluate(() => (document.querySelector('#progress') as HTMLProgressElement).value), 1, 'the progress reached the end')
  const stored = await (await fetch(`http://127.0.0.1:${apiPort}/__emulator/files`)).json() as { files: Array<{ name: string }> }
  t.same(stored.files.map((file) => file.name).sort(), ['one.txt', 'two.txt'], 'the files went straight to the upload host')
  t.same(problems, [], 'no script errors')
  t.equal(await stopChild(bff, 'SIGTERM'), 0, 'npm start stops cleanly')
})
