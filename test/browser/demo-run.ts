// One browser test's world: the stack (emulator and media-bff with the demo site), a fresh
// chromium with one page, and a list of the page's script errors and CSP violations, which every
// test ends by checking is empty. Everything is closed at the test's teardown.
import type { Test } from 'tap'
import type { BrowserContext, Page } from 'playwright-core'
import { startStack } from '../helpers/bff.js'
import type { EmulatorOptions } from '../../emulator/index.js'
import { launchChromium } from '../helpers/chromium.js'

export interface DemoRun {
  stack: Awaited<ReturnType<typeof startStack>>
  context: BrowserContext
  page: Page
  /** Script errors and CSP violations seen so far, on every page of every context. */
  problems: string[]
  /** Another page: in `context` (a tab of the same browser) or in a browser of its own. */
  newPage: (inContext?: BrowserContext) => Promise<Page>
  /** Another browser (its own cookies and storage), as a second device would be. */
  newContext: () => Promise<BrowserContext>
}

export async function openDemo (t: Test, env: Record<string, string> = {}, emulator: EmulatorOptions = {}, publicHost?: string): Promise<DemoRun> {
  const stack = await startStack({ env: { DEMO_SITE: 'on', ...env }, emulator, ...(publicHost === undefined ? {} : { publicHost }) })
  t.teardown(stack.close)
  return { stack, ...await openDemoBrowser(t) }
}

/** Chromium with one page, and the list of script errors and CSP violations of its pages. */
export async function openDemoBrowser (t: Test, options: { popupBlocking?: boolean } = {}): Promise<Omit<DemoRun, 'stack'>> {
  const chromium = await launchChromium(options)
  t.teardown(chromium.close)
  const problems: string[] = []
  const newContext = async (): Promise<BrowserContext> => await chromium.browser.newContext({ viewport: { width: 1200, height: 800 }, colorScheme: 'light' })
  const newPage = async (inContext: BrowserContext = context): Promise<Page> => {
    const page = await inContext.newPage()
    page.setDefaultTimeout(15_000)
    // A page error or a CSP violation is a bug of the demo; fail loudly rather than time out later.
    page.on('pageerror', (error) => { problems.push(`page error: ${error.message}`) })
    // Chromium logs every non-2xx answer as an error; those are refusals the page handles.
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource: the server responded with a status of')) problems.push(`console: ${message.text()}`)
    })
    return page
  }
  const context = await newContext()
  const page = await newPage()
  return { context, page, problems, newPage, newContext }
}
