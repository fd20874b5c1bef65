// The demo as a person uses it, in a real browser, through media-bff's relay to the emulator's
// library: browse folders, create one (the page asks for `manage` first), allow uploads, upload
// two files into the new folder, see them listed, make a share link (the page asks for `share`
// first) and copy it. Every permission is asked for before the person starts, and each round
// trip through the consent page comes back to the same folder and carries on.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import {
  breadcrumbs, chooseFiles, folderNames, grantInPopup, listedFiles, noticeWithCode, openFolder, scopeChips,
  screenshot, signInAs, waitForAccess, waitForFileCount, waitForFolder, waitForSession
} from './demo-steps.js'
import { openDemo } from './demo-run.js'

const HOME_FOLDERS = ['Lectures', 'Events', 'Campus tours', 'Interviews', 'Archive', 'Drafts']

t.test('alice browses, creates a folder, uploads two files into it and shares one; each permission asked for just before it is needed', async (t) => {
  const { stack, context, page, problems } = await openDemo(t)
  const { emulator, bff } = stack
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: bff.url })

  const dir = await mkdtemp(join(tmpdir(), 'media-bff-walk-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  const posterPath = join(dir, 'poster.png')
  const programmePath = join(dir, 'programme.pdf')
  await writeFile(posterPath, Buffer.alloc(300 * 1024, 7))
  await writeFile(programmePath, Buffer.alloc(2 * 1024 * 1024 + 512, 3))

  await page.goto(`${bff.url}/`)
  await waitForSession(page, 'signed-out')
  await signInAs(page, bff.url, emulator.baseUrl, 'alice')
  t.equal(await waitForAccess(page), 'grantable', 'alice may upload but has not allowed it yet')
  await waitForFolder(page, 0)

  // Browsing: home's seeded folders, into Archive, back up through the breadcrumbs and the back button.
  t.same(await folderNames(page), HOME_FOLDERS)
  t.equal(await page.textContent('#target-folder-name'), 'Home')
  const archive = await openFolder(page, 'Archive')
  t.same(await folderNames(page), ['2024', '2025'], 'Archive holds 2024 and 2025')
  t.same(await breadcrumbs(page), ['Home', 'Archive'])
  t.equal(await page.getAttribute('#breadcrumbs [aria-current="page"]', 'data-folder-id'), String(archive))
  t.equal(await page.textContent('#target-folder-name'), 'Archive', 'Archive is now the upload target')
  await page.click('#breadcrumbs button.crumb[data-folder-id="0"]')
  await waitForFolder(page, 0)
  t.same(await folderNames(page), HOME_FOLDERS, 'the breadcrumb leads home')
  await page.goBack()
  await waitForFolder(page, archive)
  t.same(await folderNames(page), ['2024', '2025'], 'the back button returns to Archive')
  await screenshot(page, 'walk-01-archive')

  // A new folder needs manage: the page offers to ask for it instead of a form that would fail.
  t.ok(await page.locator('#new-folder').isHidden(), 'no "New folder" without manage')
  // Declining on the consent page (in a popup) changes nothing, and the offer stays.
  await grantInPopup(page, '#grant-manage', 'alice', 'deny')
  await waitForSession(page, 'signed-in')
  t.match(await noticeWithCode(page, 'access_denied'), /You did not allow manage, so nothing was changed/)
  t.equal(page.url(), `${bff.url}/?folder=${archive}`, 'still in Archive: the page never left')
  await waitForFolder(page, archive)
  t.equal(await waitForAccess(page), 'grantable')
  t.ok(await page.locator('#grant-manage').isVisible(), 'still offered')
  await grantInPopup(page, '#grant-manage', 'alice')
  await waitForSession(page, 'signed-in')
  await page.waitForFunction(() => document.querySelectorAll('#scope-list [data-scope]').length === 3)
  t.same(await scopeChips(page), ['basic', 'user.info', 'manage'])
  t.match(await noticeWithCode(page, 'manage_granted'), /create in Archive/)
  t.equal(page.url(), `${bff.url}/?folder=${archive}`, 'back in Archive')
  await waitForFolder(page, archive)
  await page.waitForSelector('#new-folder-form:not([hidden]) #new-folder-name:focus')
  t.ok(await page.locator('#new-folder').isVisible(), '"New folder" now')

  // A name that is taken: the service's own sentence, and the form stays open.
  await page.fill('#new-folder-name', '2024')
  await page.click('#create-folder')
  t.match(await noticeWithCode(page, 'upstream_refused'), /already a folder with this name/)
  t.equal(await page.getAttribute('#new-folder-name', 'aria-invalid'), 'true')
  await page.fill('#new-folder-name', 'Open day 2026')
  await page.click('#create-folder')
  t.match(await noticeWithCode(page, 'folder_created'), /Created the folder “Open day 2026” in Archive/)
  await page.waitForFunction(() => document.querySelector('#breadcrumbs [aria-current="page"]')?.textContent === 'Open day 2026')
  const created = Number(await page.getAttribute('#breadcrumbs [aria-current="page"]', 'data-folder-id'))
  await waitForFolder(page, created)
  t.ok(created >= 100, 'the folder the service created is open')
  t.same(await breadcrumbs(page), ['Home', 'Archive', 'Open day 2026'])
  t.equal(page.url(), `${bff.url}/?folder=${created}`)
  t.ok(await page.locator('#new-folder-form').isHidden())
  t.equal(await page.textContent('#files-status'), 'No files in this folder yet.')

  // Uploads: allowed before any file is chosen, back in the new folder.
  t.ok(await page.locator('#upload-form').isHidden())
  await grantInPopup(page, '#allow-uploads', 'alice')
  await waitForSession(page, 'signed-in')
  await page.waitForFunction(() => document.querySelectorAll('#scope-list [data-scope]').length === 4)
  t.same(await scopeChips(page), ['basic', 'user.info', 'manage', 'upload'])
  t.match(await noticeWithCode(page, 'upload_granted'), /upload to Open day 2026/)
  await waitForFolder(page, created)
  t.equal(await waitForAccess(page), 'granted')
  t.same(await breadcrumbs(page), ['Home', 'Archive', 'Open day 2026'], 'the path is read back from the service')

  await chooseFiles(page, [posterPath, programmePath], 'Open day')
  await page.click('#upload-button')
  await noticeWithCode(page, 'upload_done')
  await waitForFileCount(page, 2)
  const files = await listedFiles(page)
  t.same(files.map((file) => file.filename).sort(), ['poster.png', 'programme.pdf'])
  t.ok(files.every((file) => file.title === 'Open day' && file.fresh), 'both listed with their title, marked new')
  t.ok(files.some((file) => file.meta.includes('300 KB')), 'sizes are human-readable')
  t.ok(files.some((file) => file.meta.includes('2.0 MB')))
  const stored = await (await fetch(`${emulator.baseUrl}/__emulator/files`)).json() as { files: Array<{ name: string, folder_id: number, user: string }> }
  t.same(stored.files.map((file) => [file.name, file.folder_id, file.user]).sort(), [['poster.png', created, 'alice'], ['programme.pdf', created, 'alice']])
  const hrefs = await page.$$eval('#file-list .file__title a', (links) => links.map((link) => link.getAttribute('href') ?? ''))
  t.equal(hrefs.length, 2)
  t.ok(hrefs.every((href) => /^https?:\/\//.test(href)), 'file links are http(s)')
  await screenshot(page, 'walk-02-uploaded')

  // Sharing needs share: "Share link" goes to the consent page first, then makes the link.
  const poster = files.find((file) => file.filename === 'poster.png')
  const programme = files.find((file) => file.filename === 'programme.pdf')
  if (poster === undefined || programme === undefined) throw new Error('the uploaded files are not listed')
  const posterRow = `#file-list [data-testid="folder-file"][data-file-id="${poster.id}"]`
  t.equal(await page.getAttribute(`${posterRow} [data-testid="share-file"]`, 'data-grant'), 'share', 'a link to the consent page for now')
  await grantInPopup(page, `${posterRow} [data-testid="share-file"]`, 'alice')
  await waitForSession(page, 'signed-in')
  await page.waitForFunction(() => document.querySelectorAll('#scope-list [data-scope]').length === 5)
  t.same(await scopeChips(page), ['basic', 'user.info', 'manage', 'upload', 'share'])
  t.match(await noticeWithCode(page, 'share_granted'), /link for Open day/)
  const linkField = page.locator(`${posterRow} [data-testid="share-link-url"]`)
  await linkField.waitFor()
  const link = await linkField.inputValue()
  t.match(link, new RegExp(`^${emulator.baseUrl}/s/[\\w-]+$`), 'the share link from the media service')

  await page.click(`${posterRow} [data-testid="copy-share-link"]`)
  await page.waitForSelector(`${posterRow} [data-testid="copy-share-link"][data-copied="true"]`)
  t.equal(await page.evaluate(async () => await navigator.clipboard.readText()), link, 'the link is on the clipboard')
  t.match(await page.textContent(`${posterRow} [data-testid="copy-status"]`), /clipboard/)

  // With share granted, "Share link" is a button that makes the link at once.
  const programmeRow = `#file-list [data-testid="folder-file"][data-file-id="${programme.id}"]`
  t.equal(await page.getAttribute(`${programmeRow} [data-testid="share-file"]`, 'data-grant'), null)
  await page.click(`${programmeRow} [data-testid="share-file"]`)
  const second = page.locator(`${programmeRow} [data-testid="share-link-url"]`)
  await second.waitFor()
  t.not(await second.inputValue(), link, 'a link of its own')
  await screenshot(page, 'walk-03-shared')
  t.same(problems, [], 'no script errors or CSP violations')
})

t.test('when user/info cannot be read, the page offers consent once and explains the missing right after the round trip', async (t) => {
  const { stack, page, problems } = await openDemo(t)
  const { emulator, bff } = stack

  await page.goto(`${bff.url}/`)
  await waitForSession(page, 'signed-out')
  await signInAs(page, bff.url, emulator.baseUrl, 'bob')
  // From now on the media service cannot say what bob is entitled to.
  await emulator.injectFault({ endpoint: 'user_info', failStatus: 500, failCount: 100 })
  await page.reload()
  await waitForSession(page, 'signed-in')
  t.equal(await waitForAccess(page), 'grantable', 'without entitlements, uploads are worth asking for')
  await waitForFolder(page, 0)
  await openFolder(page, 'Drafts')

  await grantInPopup(page, '#allow-uploads', 'bob')
  await waitForSession(page, 'signed-in')
  t.same(await scopeChips(page), ['basic', 'user.info'], 'the media service granted no upload')
  // (The sign-in could not read user/info either, so the session no longer knows bob's address.)
  t.match(await noticeWithCode(page, 'scope_not_granted'), /This account (\(bob@example\.test\) )?has no upload rights/)
  t.equal(await waitForAccess(page), 'denied', 'not offered again: no loop through consent')
  t.ok(await page.locator('#allow-uploads').isHidden())
  t.ok(await page.locator('#upload-form').isHidden())
  await waitForFolder(page, 8)
  t.same(problems, [], 'no script errors or CSP violations')
})

t.test('a folder opened while a new one is being created: the new folder opens at its real place, not inside the one opened meanwhile', async (t) => {
  const { stack, page, problems } = await openDemo(t, { OAUTH_SCOPES: 'basic user.info manage' })
  const { emulator, bff } = stack

  await page.goto(`${bff.url}/`)
  await waitForSession(page, 'signed-out')
  await signInAs(page, bff.url, emulator.baseUrl, 'alice')
  await waitForFolder(page, 0)
  const archive = await openFolder(page, 'Archive')
  t.ok(await page.locator('#new-folder').isVisible(), '"New folder" at once: manage was granted at sign-in')

  // Hold the service's answer to the create until another folder is open.
  let release: () => void = () => undefined
  const held = new Promise<void>((resolve) => { release = resolve })
  let asked: () => void = () => undefined
  const creating = new Promise<void>((resolve) => { asked = resolve })
  await page.route((url) => url.pathname === `/api/folders/${archive}`, async (route) => {
    if (route.request().method() === 'POST') {
      asked()
      await held
    }
    await route.continue()
  })
  await page.click('#new-folder')
  await page.fill('#new-folder-name', 'Late answer')
  await page.click('#create-folder')
  await creating
  const meanwhile = await openFolder(page, '2024')
  t.same(await breadcrumbs(page), ['Home', 'Archive', '2024'])
  release()

  t.match(await noticeWithCode(page, 'folder_created'), /Created the folder “Late answer” in Archive/)
  await page.waitForFunction(() => document.querySelector('#breadcrumbs [aria-current="page"]')?.textContent === 'Late answer')
  const created = Number(await page.getAttribute('#breadcrumbs [aria-current="page"]', 'data-folder-id'))
  await waitForFolder(page, created)
  t.not(created, meanwhile)
  t.same(await breadcrumbs(page), ['Home', 'Archive', 'Late answer'], 'under Archive, where it was created, not under 2024')
  t.equal(page.url(), `${bff.url}/?folder=${created}`)
  t.same(problems, [], 'no script errors or CSP violations')
})
