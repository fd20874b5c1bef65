// Acceptance in a real browser: the demo page served by media-bff, the emulator's consent page,
// and files travelling from chromium straight to the emulator's upload origin. Screenshots of
// the key steps land in test-artifacts/browser/. The whole walk through folders, new folders and
// share links is demo-walk.test.ts.
import { createHash, randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { collectBrowserState, findSecrets, recordResponses } from '../helpers/chromium.js'
import { issuedTokens } from '../helpers/issued-tokens.js'
import { chooseFiles, consentAs, dropFiles, folderNames, followToConsent, grantInPopup, listedFiles, noticeWithCode, openFolder, scopeChips, screenshot, signInAs, waitForAccess, waitForFileCount, waitForFolder, waitForSession } from './demo-steps.js'
import { openDemo } from './demo-run.js'

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex')

t.test('alice signs in, allows uploads before choosing files, uploads two files at once into a folder; no token reaches the browser', async (t) => {
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

  // Alice may upload but has not allowed it: the page asks before any file is chosen.
  t.equal(await waitForAccess(page), 'grantable')
  t.ok(await page.locator('#upload-form').isHidden(), 'no file picker before uploads are allowed')
  t.ok(await page.locator('#allow-uploads').isVisible())
  await waitForFolder(page, 0)
  await openFolder(page, 'Archive')
  const folderId = await openFolder(page, '2025')
  t.equal(folderId, 7)
  t.equal(page.url(), `${bff.url}/?folder=7`, 'the open folder is in the address')
  await screenshot(page, '02-allow-uploads')

  await grantInPopup(page, '#allow-uploads', 'alice')
  await waitForSession(page, 'signed-in')
  await page.waitForFunction(() => document.querySelectorAll('#scope-list [data-scope]').length === 3)
  t.same(await scopeChips(page), ['basic', 'user.info', 'upload'], 'upload granted on top of the earlier scopes')
  t.match(await noticeWithCode(page, 'upload_granted'), /Choose files to upload to 2025/)
  t.equal(page.url(), `${bff.url}/?folder=7`, 'the page never left the folder')
  await waitForFolder(page, 7)
  t.equal(await waitForAccess(page), 'granted')
  t.equal(await page.textContent('#upload-folder-name'), '2025')

  await chooseFiles(page, [bigPath, smallPath], 'Summer trip')
  await page.click('#upload-button')
  await page.waitForFunction(() => {
    const bars = [...document.querySelectorAll<HTMLProgressElement>('#progress-list progress[data-testid="upload-progress"]')]
    return bars.length === 2 && bars.every((bar) => bar.value === 100 && bar.dataset.progress === '100')
  })
  await noticeWithCode(page, 'upload_done')
  await waitForFileCount(page, 2)
  // The demo shows progress, so the browser asks the upload host first (the module says so).
  t.ok(emulator.counters().uploadPreflights >= 1, 'an upload that reports progress is preflighted')
  t.same(await page.$$eval('#progress-list [data-testid="upload-item"]', (rows) => rows.map((row) => row.getAttribute('data-state'))), ['done', 'done'])
  const files = await listedFiles(page)
  t.same(files.map((file) => file.filename).sort(), ['holiday-video.bin', 'notes.txt'])
  t.ok(files.every((file) => file.title === 'Summer trip' && file.fresh), 'titles listed, both marked new')
  t.ok(files.some((file) => file.meta.includes('5.0 MB')), 'the size is shown in a readable form')
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
  t.ok(apiBodies.some((response) => response.url.endsWith('/api/folders/7/contents') && response.body?.includes('holiday-video.bin') === true), 'the relayed listing was recorded')
  // The consent popup's last page closes itself at once, and chromium may let its body (and its
  // script's) go with it: that page holds only a nonce, an origin and an outcome
  // (test/sign-in/popup-sign-in.test.ts), its script is the same for everyone.
  const ofThePopupsLastPage = (response: { url: string, status: number }): boolean => (new URL(response.url).pathname === '/auth/callback' && response.status === 200) || new URL(response.url).pathname === '/auth/popup.js'
  t.same(apiBodies.filter((response) => response.body === undefined && !ofThePopupsLastPage(response)).map((response) => response.url), [], 'every other media-bff body could be read')
  t.same(findSecrets(state, [...tokens.access, ...tokens.refresh]), [], 'no access or refresh token in cookies, storage, DOM or responses')

  await page.click('#sign-out')
  await waitForSession(page, 'signed-out')
  await noticeWithCode(page, 'signed_out')
  t.ok(await page.locator('#files-panel').isHidden(), 'signing out hides the library')
  t.equal(await page.locator('#file-list [data-testid="folder-file"]').count(), 0, 'and clears what was shown')
  const after = await page.evaluate(async () => await (await fetch('/auth/session', { credentials: 'include', headers: { 'x-csrf': '1' } })).json() as { authenticated: boolean })
  t.equal(after.authenticated, false, 'the session is gone on the server too')
  t.same(problems, [], 'no script errors or CSP violations')
})

t.test('bob has no upload, manage or share rights: no picker, no "New folder", no offer to ask for any of them, an explanation instead', async (t) => {
  const { stack, page, problems } = await openDemo(t)
  const { emulator, bff } = stack

  await page.goto(`${bff.url}/`)
  await waitForSession(page, 'signed-out')
  await signInAs(page, bff.url, emulator.baseUrl, 'bob')
  t.equal(await page.textContent('#user-name'), 'Bob Example')
  t.equal(await waitForAccess(page), 'denied', 'user/info says bob may not upload')
  await waitForFolder(page, 0)
  t.match(await page.textContent('#upload-unavailable'), /This account \(bob@example\.test\) has no upload rights in the media service/)
  t.ok(await page.locator('#upload-unavailable').isVisible())
  t.ok(await page.locator('#upload-form').isHidden(), 'no upload form')
  t.notOk(await page.locator('#file-input').isVisible(), 'no file picker')
  t.ok(await page.locator('#allow-uploads').isHidden(), 'no consent button that would loop')
  t.ok(await page.locator('#new-folder').isHidden(), 'no "New folder"')
  t.ok(await page.locator('#grant-manage').isHidden(), 'and no button asking for manage')

  // Browsing needs only basic, which bob has.
  await openFolder(page, 'Archive')
  t.same(await folderNames(page), ['2024', '2025'])
  // Opening a folder renders the offers again: still none of those alice is shown.
  t.ok(await page.locator('#grant-share-hint').isHidden(), 'no hint that "Share link" will ask for sharing')
  t.ok(await page.locator('#grant-manage-hint').isHidden(), 'no hint that creating folders will ask')
  t.ok(await page.locator('#upload-consent').isHidden(), 'no "Allow uploads" offer')
  t.ok(await page.locator('#new-folder').isHidden(), 'still no "New folder"')
  t.ok(await page.locator('#upload-unavailable').isVisible(), 'the explanation stays')
  await screenshot(page, '04-bob-no-upload-right')
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
  t.equal(await waitForAccess(page), 'granted', 'the picker shows at once')
  await waitForFolder(page, 0)

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
  await waitForFileCount(page, 1)
  t.match(await listedFiles(page), [{ filename: 'readme.txt', title: 'readme', meta: /5 bytes/, fresh: true }], 'the stored file is listed in home')
  await screenshot(page, '06-partly-refused')
  const stored = await (await fetch(`${emulator.baseUrl}/__emulator/files`)).json() as { files: Array<{ name: string }> }
  t.same(stored.files.map((file) => file.name), ['readme.txt'])
  t.same(problems, [], 'no script errors or CSP violations')
})
