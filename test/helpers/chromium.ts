// Real-browser tests: Debian's chromium driven through playwright-core (which never downloads a
// browser of its own), and a recorder of everything a page could leak a secret into: cookies,
// localStorage, sessionStorage, the DOM, and every response it received.
import { chromium, type Browser, type BrowserContext, type Page, type Response } from 'playwright-core'
import { requireProgram } from './programs.js'

export interface LaunchedChromium {
  browser: Browser
  close: () => Promise<void>
}

/**
 * Launches headless chromium; fails with the apt command to run when it is not installed.
 * `popupBlocking`: chromium's own popup blocker stays on (playwright turns it off by default), so
 * a popup not opened from a click is blocked as in a person's browser.
 */
export async function launchChromium ({ popupBlocking = false, args = [] }: { popupBlocking?: boolean, args?: string[] } = {}): Promise<LaunchedChromium> {
  const browser = await chromium.launch({
    executablePath: requireProgram('chromium'),
    headless: true,
    ...(popupBlocking ? { ignoreDefaultArgs: ['--disable-popup-blocking'] } : {}),
    // No sandbox: test containers rarely allow the user namespaces it needs. The rest keeps
    // chromium from phoning home or stalling on a small /dev/shm.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', ...args]
  })
  return {
    browser,
    close: async () => { await browser.close() }
  }
}

export interface RecordedResponse {
  url: string
  status: number
  headers: string
  /** undefined when chromium no longer had the body (e.g. a page that navigated away at once). */
  body: string | undefined
}

export interface ResponseRecorder {
  /** Every response so far, once its body has been read. */
  responses: () => Promise<RecordedResponse[]>
}

/**
 * Records every response any page of the context receives, headers and body. Bodies are read
 * as soon as each response arrives, while chromium still holds them; redirects have none.
 */
export function recordResponses (context: BrowserContext): ResponseRecorder {
  const pending: Array<Promise<RecordedResponse>> = []
  context.on('response', (response: Response) => {
    pending.push(readResponse(response))
  })
  return { responses: async () => await Promise.all(pending) }
}

async function readResponse (response: Response): Promise<RecordedResponse> {
  const headers = JSON.stringify(await response.allHeaders().catch(() => response.headers()))
  const isRedirect = response.status() >= 300 && response.status() < 400
  // A live channel (GET /events) stays open while its page does: there is no end to read. What
  // it carries is checked where it is read whole (test/events/live-events.suite.ts: no token).
  const isEventStream = (response.headers()['content-type'] ?? '').startsWith('text/event-stream')
  const body = isRedirect || isEventStream ? '' : await response.text().catch(() => undefined)
  return { url: response.url(), status: response.status(), headers, body }
}

export interface BrowserState {
  cookies: string
  localStorage: string
  sessionStorage: string
  dom: string
  responses: RecordedResponse[]
}

/** Everything the browser holds or was sent, as text, for searching. */
export async function collectBrowserState (context: BrowserContext, page: Page, recorder: ResponseRecorder): Promise<BrowserState> {
  // storageState covers cookies and localStorage of every origin; sessionStorage is per tab.
  const storage = await context.storageState()
  const pageStorage = await page.evaluate(() => ({
    local: JSON.stringify({ ...window.localStorage }),
    session: JSON.stringify({ ...window.sessionStorage }),
    dom: document.documentElement.outerHTML
  }))
  return {
    cookies: JSON.stringify(storage.cookies),
    localStorage: JSON.stringify(storage.origins) + pageStorage.local,
    sessionStorage: pageStorage.session,
    dom: pageStorage.dom,
    responses: await recorder.responses()
  }
}

/** Where any of the secrets appears in the state: a list of "secret prefix… in place". */
export function findSecrets (state: BrowserState, secrets: readonly string[]): string[] {
  const places: Array<[string, string]> = [
    ['cookies', state.cookies],
    ['localStorage', state.localStorage],
    ['sessionStorage', state.sessionStorage],
    ['DOM', state.dom],
    ...state.responses.map((response): [string, string] => [`response ${response.status} ${response.url}`, `${response.headers}\n${response.body ?? ''}`])
  ]
  const found: string[] = []
  for (const secret of secrets) {
    if (secret === '') continue
    for (const [place, text] of places) {
      if (text.includes(secret)) found.push(`${secret.slice(0, 6)}… in ${place}`)
    }
  }
  return found
}
