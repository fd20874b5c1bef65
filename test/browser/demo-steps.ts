// Steps a person takes on the demo page and on the emulator's consent page, written once for
// the browser tests. Each step waits for the page to settle, so tests read as a story.
import { mkdir } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'

/** Screenshots go to test-artifacts/ at the project root (git-ignored), for people to look at. */
const artifactsDir = fileURLToPath(new URL('../../test-artifacts/browser/', import.meta.url))

export async function screenshot (page: Page, name: string): Promise<void> {
  await mkdir(artifactsDir, { recursive: true })
  await page.screenshot({ path: `${artifactsDir}${name}.png`, fullPage: true })
}

export type SessionState = 'signed-in' | 'signed-out' | 'error'

export async function waitForSession (page: Page, state: SessionState): Promise<void> {
  await page.waitForSelector(`body[data-session="${state}"]`)
}

/** On the emulator's consent page: pick the user and approve or deny; back on the demo page. */
export async function consentAs (page: Page, demoUrl: string, user: string, decision: 'approve' | 'deny' = 'approve'): Promise<void> {
  await page.waitForSelector(`#user-${user}`)
  await page.check(`#user-${user}`)
  await Promise.all([
    page.waitForURL((url) => url.href.startsWith(`${demoUrl}/`)),
    page.click(`#${decision}`)
  ])
}

/**
 * Clicks a consent link on the demo page, which asks in a popup: picks the user and approves or
 * denies on the emulator's consent page there, and waits for the popup to close itself. The page
 * itself never navigates.
 */
export async function grantInPopup (page: Page, selector: string, user: string, decision: 'approve' | 'deny' = 'approve'): Promise<void> {
  const [popup] = await Promise.all([page.context().waitForEvent('page'), page.click(selector)])
  await popup.waitForSelector(`#user-${user}`)
  await popup.check(`#user-${user}`)
  await Promise.all([popup.waitForEvent('close'), popup.click(`#${decision}`)])
}

/** Follows a link on the demo page (sign-in, grant) to the emulator's consent page. */
export async function followToConsent (page: Page, selector: string, emulatorBaseUrl: string): Promise<void> {
  await Promise.all([
    page.waitForURL((url) => url.href.startsWith(`${emulatorBaseUrl}/api/oauth2/authorize`)),
    page.click(selector)
  ])
}

export async function signInAs (page: Page, demoUrl: string, emulatorBaseUrl: string, user: string): Promise<void> {
  await followToConsent(page, '#sign-in', emulatorBaseUrl)
  await consentAs(page, demoUrl, user)
  await waitForSession(page, 'signed-in')
}

/** Waits until the page has read what the account may do; returns the upload panel's state. */
export async function waitForAccess (page: Page): Promise<string> {
  const panel = await page.waitForSelector('#upload-panel[data-upload]')
  return (await panel.getAttribute('data-upload')) ?? ''
}

/** Waits until the folder's contents are shown (the page marks the open folder on body). */
export async function waitForFolder (page: Page, folderId: number): Promise<void> {
  await page.waitForSelector(`body[data-folder-id="${folderId}"]`)
}

/** Clicks a subfolder of the open folder by name; returns its id once it is open. */
export async function openFolder (page: Page, name: string): Promise<number> {
  const button = page.locator('#folder-list [data-testid="folder"]').filter({ has: page.locator('.folder__name', { hasText: new RegExp(`^${escapeRegExp(name)}$`) }) })
  const id = Number(await button.getAttribute('data-folder-id'))
  await button.click()
  await waitForFolder(page, id)
  return id
}

export async function folderNames (page: Page): Promise<string[]> {
  return await page.$$eval('#folder-list [data-testid="folder"]', (buttons) => buttons.map((button) => button.getAttribute('data-folder-name') ?? ''))
}

export async function breadcrumbs (page: Page): Promise<string[]> {
  return await page.$$eval('#breadcrumbs .crumb', (crumbs) => crumbs.map((crumb) => crumb.textContent ?? ''))
}

export interface ListedFile {
  id: string
  title: string
  filename: string
  meta: string
  fresh: boolean
}

export async function listedFiles (page: Page): Promise<ListedFile[]> {
  return await page.$$eval('#file-list [data-testid="folder-file"]', (rows) => rows.map((row) => ({
    id: row.getAttribute('data-file-id') ?? '',
    title: row.getAttribute('data-title') ?? '',
    filename: row.getAttribute('data-filename') ?? '',
    meta: row.querySelector('[data-testid="file-meta"]')?.textContent ?? '',
    fresh: row.getAttribute('data-fresh') === 'true'
  })))
}

export async function waitForFileCount (page: Page, count: number): Promise<void> {
  await page.waitForFunction((expected) => document.querySelectorAll('#file-list [data-testid="folder-file"]').length === expected, count)
}

export async function chooseFiles (page: Page, paths: string[], title = ''): Promise<void> {
  await page.fill('#upload-title', title)
  await page.setInputFiles('#file-input', paths)
  await page.waitForFunction((count) => document.querySelectorAll('#chosen-files [data-testid="chosen-file"]').length === count, paths.length)
}

function escapeRegExp (text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** Drops files made in the page onto the drop zone, as a drag from the desktop would. */
export async function dropFiles (page: Page, files: Array<{ name: string, text: string }>): Promise<void> {
  const dataTransfer = await page.evaluateHandle((list) => {
    const transfer = new DataTransfer()
    for (const { name, text } of list) transfer.items.add(new File([text], name, { type: 'application/octet-stream' }))
    return transfer
  }, files)
  await page.dispatchEvent('#drop-zone', 'drop', { dataTransfer })
  await dataTransfer.dispose()
}

/** Waits for the notice with this code and returns its text; when it never comes, says which notice the page shows instead. */
export async function noticeWithCode (page: Page, code: string): Promise<string> {
  try {
    const notice = await page.waitForSelector(`#notice[data-code="${code}"]:not([hidden])`)
    return (await notice.textContent()) ?? ''
  } catch (error) {
    const shown = await page.$eval('#notice', (element) => `${element.hasAttribute('hidden') ? 'hidden' : 'shown'} ${element.getAttribute('data-code') ?? '(no code)'}: ${element.textContent ?? ''}`).catch(() => 'no #notice')
    throw new Error(`no notice ${code}; the page's notice is ${shown}`, { cause: error })
  }
}

export async function scopeChips (page: Page): Promise<string[]> {
  return await page.$$eval('#scope-list [data-scope]', (chips) => chips.map((chip) => chip.getAttribute('data-scope') ?? ''))
}
