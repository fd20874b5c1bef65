// Sessions people can see and end, and tabs that agree, in real Chromium on the demo page:
// two tabs of one browser (a sign-out in one, the other follows without a reload), two browsers
// of one person (one ends the other from "Your sessions"; its page is told at once on its live
// channel, and its cookie is dead), the operator's lever ending both (each page told at once),
// and the notice before the idle timeout.
import t from 'tap'
import type { Page } from 'playwright-core'
import { noticeWithCode, signInAs, waitForFolder, waitForSession } from './demo-steps.js'
import { openDemo } from './demo-run.js'

const OPERATOR_TOKEN = 'operator-token-0123456789-abcdefghijklmnop'

/** Marks the page, so a reload (which would lose the mark) can be told from a live update. */
async function markUnreloaded (page: Page): Promise<void> {
  await page.evaluate(() => { (window as unknown as { unreloaded: boolean }).unreloaded = true })
}
async function wasReloaded (page: Page): Promise<boolean> {
  return !(await page.evaluate(() => (window as unknown as { unreloaded?: boolean }).unreloaded === true))
}

t.test('two tabs of one browser: signing out in one, the other follows at once, without a reload', async (t) => {
  const { stack, page, problems, newPage } = await openDemo(t)
  const { bff, emulator } = stack
  await page.goto(`${bff.url}/`)
  await signInAs(page, bff.url, emulator.baseUrl, 'alice')
  const other = await newPage()
  await other.goto(`${bff.url}/`)
  await waitForSession(other, 'signed-in')
  await waitForFolder(other, 0)
  await markUnreloaded(other)

  await page.click('#sign-out')
  await waitForSession(page, 'signed-out')
  t.match(await noticeWithCode(page, 'signed_out'), /signed out/)
  // No focus, no call: the other tab hears of it on the BroadcastChannel.
  await waitForSession(other, 'signed-out')
  t.match(await noticeWithCode(other, 'signed_out_elsewhere'), /another tab/)
  t.equal(await wasReloaded(other), false, 'the other tab was not reloaded')
  t.equal(await other.locator('#file-list > *').count(), 0, 'nothing of the session stays on it')
  t.same(problems, [], 'no script errors or CSP violations')
})

t.test('two browsers of one person: one ends the other from "Your sessions"; its page is told at once, and its cookie is dead', async (t) => {
  const { stack, page: office, problems, newPage, newContext } = await openDemo(t)
  const { bff, emulator } = stack
  await office.goto(`${bff.url}/`)
  await signInAs(office, bff.url, emulator.baseUrl, 'alice')
  const laptop = await newPage(await newContext())
  await laptop.goto(`${bff.url}/`)
  await signInAs(laptop, bff.url, emulator.baseUrl, 'alice')
  await waitForFolder(laptop, 0)
  await markUnreloaded(laptop)

  await office.reload()
  await waitForSession(office, 'signed-in')
  const rows = office.locator('#session-list [data-testid="session"]')
  await rows.nth(1).waitFor()
  t.equal(await rows.count(), 2, 'both sessions are listed')
  t.equal(await office.locator('#session-list [data-current="true"]').count(), 1, 'this device is marked')
  t.match(await office.locator('#session-list [data-current="true"] [data-testid="session-device"]').textContent(), /this device/)
  await office.click('#session-list [data-current="false"] [data-testid="end-session"]')
  await noticeWithCode(office, 'session_ended')
  await office.waitForFunction(() => document.querySelectorAll('#session-list [data-testid="session"]').length === 1)
  t.equal(await office.locator('body').getAttribute('data-session'), 'signed-in', 'the office stays signed in')

  // No call, no focus: the laptop's live channel closes with the session, saying why.
  await waitForSession(laptop, 'signed-out')
  t.match(await noticeWithCode(laptop, 'session_ended'), /ended/)
  const after = await laptop.evaluate(async () => await (await fetch('/auth/session', { headers: { 'x-csrf': '1' } })).json()) as { authenticated: boolean }
  t.equal(after.authenticated, false, 'its cookie is dead on the server')
  t.equal(await wasReloaded(laptop), false)
  t.same(problems, [], 'no script errors or CSP violations')
})

t.test('the operator\'s lever ends every session of the person; each page is told at once', async (t) => {
  const { stack, page: office, problems, newPage, newContext } = await openDemo(t, { OPERATOR_TOKEN })
  const { bff, emulator } = stack
  await office.goto(`${bff.url}/`)
  await signInAs(office, bff.url, emulator.baseUrl, 'alice')
  const laptop = await newPage(await newContext())
  await laptop.goto(`${bff.url}/`)
  await signInAs(laptop, bff.url, emulator.baseUrl, 'alice')

  const aliceId = String(emulator.users.find((user) => user.name === 'alice')?.userId)
  const lever = await fetch(`${bff.url}/operator/users/default/${aliceId}/sessions`, { method: 'DELETE', headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'x-csrf': '1' } })
  t.same(await lever.json(), { ended: 2 })
  for (const page of [office, laptop]) {
    // Neither looked at again nor calling: the live channel says it.
    await waitForSession(page, 'signed-out')
    t.match(await noticeWithCode(page, 'session_ended'), /ended/)
  }
  t.same(problems, [], 'no script errors or CSP violations')
})

t.test('before the idle timeout the page offers to stay signed in; the absolute end is shown', async (t) => {
  const { stack, page, problems } = await openDemo(t, { SESSION_IDLE_TIMEOUT: '12s' })
  const { bff, emulator } = stack
  await page.goto(`${bff.url}/`)
  await signInAs(page, bff.url, emulator.baseUrl, 'alice')
  const absolute = await page.locator('#session-until').getAttribute('data-absolute-expires-at')
  const session = await page.evaluate(async () => await (await fetch('/auth/session', { headers: { 'x-csrf': '1' } })).json()) as { absolute_expires_at: string }
  t.equal(absolute, session.absolute_expires_at, 'the absolute end is on the page')
  t.match(await page.locator('#session-until').textContent(), /at the latest/)

  await page.waitForSelector('#notice[data-code="session_expiring"]', { timeout: 20_000 })
  t.match(await page.locator('#notice-text').textContent(), /unless you carry on/)
  await page.click('#stay-signed-in')
  await page.waitForSelector('#notice', { state: 'hidden' })
  // Past the end the notice named: still signed in, because staying signed in reset the idle timer.
  await page.waitForTimeout(4000)
  t.equal(await page.locator('body').getAttribute('data-session'), 'signed-in')
  const after = await page.evaluate(async () => await (await fetch('/auth/session', { headers: { 'x-csrf': '1' } })).json()) as { authenticated: boolean }
  t.equal(after.authenticated, true, 'media-bff agrees')
  t.same(problems, [], 'no script errors or CSP violations')
})
