// Acceptance in a real browser: the demo page served by media-bff, the emulator's consent page,
// and files travelling from chromium straight to the emulator's upload origin. Screenshots of
// the key steps land in test-artifacts/browser/.
import { createHash, randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import type { BrowserContext, Page } from 'playwright-core'
import { startStack } from '../helpers/bff.js'
import { collectBrowserState, findSecrets, launchChromium, recordResponses } from '../helpers/chromium.js'
import { issuedTokens } from '../helpers/issued-tokens.js'
import { chooseFiles, consentAs, dropFiles, followToConsent, noticeWithCode, scopeChips, screenshot, signInAs, waitForSession } from './demo-steps.js'

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex')

interface DemoRun {
  stack: Awaited<ReturnType<typeof startStack>>
  context: BrowserContext
  page: Page
  /** Script errors and CSP violations seen so far; each test ends by checking it is empty. */
  problems: string[]
}

/** The stack with the demo site, a fresh chromium, and the demo page open; all closed at teardown. */
async function openDemo (t: Test, env: Record<string, string> = {}): Promise<DemoRun> {
  const stack = await startStack({ env: { DEMO_SITE: 'on', ...env } })
  t.teardown(stack.close)
  const chromium = await launchChromium()
  t.teardown(chromium.close)
  const context = await chromium.browser.newContext({ viewport: { width: 1200, height: 800 }, colorScheme: 'light' })
  const page = await context.newPage()
  page.setDefaultTimeout(15_000)
  // A page error or a CSP violation is a bug of the demo; fail loudly rather than time out later.
  const problems: string[] = []
  page.on('pageerror', (error) => { problems.push(`page error: ${error.message}`) })
  // Chromium logs every non-2xx answer as an error; those are refusals the page handles.
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource: the server responded with a status of')) problems.push(`console: ${message.text()}`)
  })
  return { stack, context, page, problems }
}

t.test('alice signs in, grants upload, uploads two files at once; no token reaches the browser', async (t) => {
  const { stack, context, page, problems } = await openDemo(t)
  const recorder = recordResponses(context)
  const { emulator, bff } = stack

  const dir = await mkdtemp(join(tmpdir(), 'media-bff-browser-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  const big = randomBytes(5 * 1024 * 1024 + 123)
  const small = Buffer.from('Notes for the media service.\nSecond line.\n')
  const bigPath = join(dir, 'holiday-video.bin')
  const smallPath = join(dir, 'notes.txt')
  await writeFile(bigPath, big)
  await writeFile(smallPath, small)

  await page.goto(`${bff.url}/`)
  await waitForSession(page, 'signed-out')
  await screenshot(page, '01-signed-out')

  await signInAs(page, bff.url, emulator.baseUrl, 'alice')
  t.equal(await page.textContent('#user-name'), 'Alice Example')
  t.equal(await page.textContent('#user-email'), 'alice@example.test')
  t.same(await scopeChips(page), ['basic', 'user.info'], 'the configured scopes, no upload yet')

  // First try: the session lacks the upload scope, so media-bff refuses the registration.
  await chooseFiles(page, [bigPath, smallPath], 7, 'Summer trip')
  await page.click('#upload-button')
  t.match(await noticeWithCode(page, 'insufficient_scope'), /upload/)
  await screenshot(page, '02-insufficient-scope')

  await followToConsent(page, '#grant-upload', emulator.baseUrl)
  await consentAs(page, bff.url, 'alice')
  await waitForSession(page, 'signed-in')
  t.same(await scopeChips(page), ['basic', 'user.info', 'upload'], 'upload granted on top of the earlier scopes')
  t.match(await noticeWithCode(page, 'upload_granted'), /granted/)
  t.equal(await page.inputValue('#folder-id'), '7', 'the folder survives the round trip')
  t.equal(page.url(), `${bff.url}/`, 'back on the page it started from')

  await chooseFiles(page, [bigPath, smallPath], 7, 'Summer trip')
  await page.click('#upload-button')
  await page.waitForFunction(() => {
    const bars = [...document.querySelectorAll<HTMLProgressElement>('#progress-list progress[data-testid="upload-progress"]')]
    return bars.length === 2 && bars.every((bar) => bar.value === 100 && bar.dataset.progress === '100')
  })
  await page.waitForFunction(() => document.querySelectorAll('#result-list [data-testid="stored-file"]').length === 2)
  await noticeWithCode(page, 'upload_done')
  t.same(await page.$$eval('#progress-list [data-testid="upload-item"]', (rows) => rows.map((row) => row.getAttribute('data-state'))), ['done', 'done'])
  const results = await page.$$eval('#result-list [data-testid="stored-file"]', (rows) => rows.map((row) => ({ filename: row.getAttribute('data-filename'), text: row.textContent ?? '' })))
  t.same(results.map((row) => row.filename).sort(), ['holiday-video.bin', 'notes.txt'])
  t.ok(results.every((row) => row.text.includes('Summer trip') && row.text.includes('folder 7')), 'titles and folder are listed')
  t.ok(results.some((row) => row.text.includes('5.0 MB')), 'the size is shown in a readable form')
  await screenshot(page, '03-uploaded')

  const stored = await (await fetch(`${emulator.baseUrl}/__emulator/files`)).json() as { files: Array<{ name: string, folder_id: number, title: string, size: number, sha256: string, user: string }> }
  const byName = new Map(stored.files.map((file) => [file.name, file]))
  t.equal(stored.files.length, 2, 'exactly the two files reached the media service')
  t.match(byName.get('holiday-video.bin'), { user: 'alice', folder_id: 7, title: 'Summer trip', size: big.length, sha256: sha256(big) })
  t.match(byName.get('notes.txt'), { user: 'alice', folder_id: 7, title: 'Summer trip', size: small.length, sha256: sha256(small) })

  // The tokens media-bff holds for alice must never reach the browser in any form.
  const tokens = await issuedTokens(emulator.baseUrl)
  t.ok(tokens.access.length >= 2 && tokens.refresh.length >= 2, 'two sign-ins issued tokens')
  const state = await collectBrowserState(context, page, recorder)
  const apiBodies = state.responses.filter((response) => response.url.startsWith(bff.url) && response.status !== 302)
  t.ok(apiBodies.some((response) => response.url.endsWith('/auth/session') && response.body?.includes('"authenticated":true') === true), 'session answers were recorded')
  t.ok(apiBodies.some((response) => response.url.endsWith('/uploads/register') && response.body?.includes('url_upload_direct') === true), 'the registration was recorded')
  t.same(apiBodies.filter((response) => response.body === undefined).map((response) => response.url), [], 'every media-bff body could be read')
  t.same(findSecrets(state, [...tokens.access, ...tokens.refresh]), [], 'no access or refresh token in cookies, storage, DOM or responses')

  await page.click('#sign-out')
  await waitForSession(page, 'signed-out')
  await noticeWithCode(page, 'signed_out')
  t.equal(await page.locator('#results-panel').isHidden(), true, 'signing out clears what was shown')
  const after = await page.evaluate(async () => await (await fetch('/auth/session', { credentials: 'include' })).json() as { authenticated: boolean })
  t.equal(after.authenticated, false, 'the session is gone on the server too')
  t.same(problems, [], 'no script errors or CSP violations')
})

t.test('bob cannot get upload: after the grant attempt the page explains the missing right', async (t) => {
  const { stack, page, problems } = await openDemo(t)
  const { emulator, bff } = stack
  const dir = await mkdtemp(join(tmpdir(), 'media-bff-browser-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  const filePath = join(dir, 'report.txt')
  await writeFile(filePath, 'quarterly report\n')

  await page.goto(`${bff.url}/`)
  await waitForSession(page, 'signed-out')
  await signInAs(page, bff.url, emulator.baseUrl, 'bob')
  t.equal(await page.textContent('#user-name'), 'Bob Example')

  await chooseFiles(page, [filePath], 0)
  await page.click('#upload-button')
  await noticeWithCode(page, 'insufficient_scope')
  await followToConsent(page, '#grant-upload', emulator.baseUrl)
  await consentAs(page, bff.url, 'bob')
  await waitForSession(page, 'signed-in')
  t.same(await scopeChips(page), ['basic', 'user.info'], 'the media service granted no upload')
  t.match(await noticeWithCode(page, 'scope_not_granted'), /no upload rights in the media service/)
  t.equal(await page.locator('#grant-upload').count(), 0, 'no button that would loop through consent again')
  await screenshot(page, '04-bob-no-upload-right')

  // Trying anyway: media-bff now answers scope_not_granted, and the page says the same.
  await chooseFiles(page, [filePath], 0)
  const [refusal] = await Promise.all([
    page.waitForResponse((response) => response.url() === `${bff.url}/uploads/register`),
    page.click('#upload-button')
  ])
  t.equal(refusal.status(), 403)
  t.match(await refusal.json(), { error: 'scope_not_granted' })
  await page.waitForFunction(() => document.querySelector('#upload-form')?.getAttribute('aria-busy') === 'false')
  t.match(await noticeWithCode(page, 'scope_not_granted'), /bob@example\.test/)
  t.equal(await page.locator('#grant-upload').count(), 0)
  t.equal(await page.locator('#progress-list [data-testid="upload-item"]').count(), 0, 'nothing was sent to the upload host')
  const stored = await (await fetch(`${emulator.baseUrl}/__emulator/files`)).json() as { files: unknown[] }
  t.same(stored.files, [])
  t.same(problems, [], 'no script errors or CSP violations')
})

t.test('a cancelled sign-in (deny) shows "Sign-in was cancelled" and cleans the address', async (t) => {
  const { stack, page, problems } = await openDemo(t)
  const { emulator, bff } = stack

  await page.goto(`${bff.url}/`)
  await waitForSession(page, 'signed-out')
  await followToConsent(page, '#sign-in', emulator.baseUrl)
  await consentAs(page, bff.url, 'alice', 'deny')
  await waitForSession(page, 'signed-out')
  t.match(await noticeWithCode(page, 'access_denied'), /Sign-in was cancelled/)
  t.equal(page.url(), `${bff.url}/`, 'auth_error is gone from the address bar')
  await screenshot(page, '05-sign-in-cancelled')

  await page.reload()
  await waitForSession(page, 'signed-out')
  t.ok(await page.locator('#notice').isHidden(), 'a reload does not repeat the message')
  t.same(problems, [], 'no script errors or CSP violations')
})

t.test('files dropped on the page: one the upload host refuses shows its message, the other is stored', async (t) => {
  // Upload granted from the start, and only .txt allowed, so the media service refuses the .exe.
  const { stack, page, problems } = await openDemo(t, { OAUTH_SCOPES: 'basic user.info upload', UPLOAD_FILE_EXTENSIONS: 'txt' })
  const { emulator, bff } = stack

  await page.goto(`${bff.url}/`)
  await waitForSession(page, 'signed-out')
  await signInAs(page, bff.url, emulator.baseUrl, 'alice')
  t.same(await scopeChips(page), ['basic', 'user.info', 'upload'])

  await dropFiles(page, [{ name: 'readme.txt', text: 'hello' }, { name: 'setup.exe', text: 'MZ not really' }])
  t.same(await page.$$eval('#chosen-files [data-testid="chosen-file"]', (rows) => rows.map((row) => row.getAttribute('data-file-name'))), ['readme.txt', 'setup.exe'])
  await page.click('#upload-button')
  t.match(await noticeWithCode(page, 'upload_partial'), /1 of 2 files uploaded/)
  const rows = await page.$$eval('#progress-list [data-testid="upload-item"]', (items) => items.map((item) => ({
    name: item.getAttribute('data-file-name'),
    state: item.getAttribute('data-state'),
    text: item.textContent ?? ''
  })))
  t.match(rows, [{ name: 'readme.txt', state: 'done' }, { name: 'setup.exe', state: 'failed', text: /This type of file is not allowed/ }])
  t.same(await page.$$eval('#result-list [data-testid="stored-file"]', (items) => items.map((item) => item.getAttribute('data-filename'))), ['readme.txt'])
  await screenshot(page, '06-partly-refused')
  const stored = await (await fetch(`${emulator.baseUrl}/__emulator/files`)).json() as { files: Array<{ name: string }> }
  t.same(stored.files.map((file) => file.name), ['readme.txt'])
  t.same(problems, [], 'no script errors or CSP violations')
})
