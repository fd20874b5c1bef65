// An in-process stack for the fault suites (upstream and store): the emulator with a long random
// client secret, media-bff with a short UPSTREAM_TIMEOUT_MS, and helpers that sign browsers in
// (noting every code, state and cookie for the log search) and age their access tokens on demand.
import { setTimeout as sleep } from 'node:timers/promises'
import { randomBytes } from 'node:crypto'
import type { Test } from 'tap'
import { startStack, UNLIMITED_RATES } from '../helpers/bff.js'
import type { Browser, HttpResponse } from '../helpers/http-client.js'
import { clearsCookie } from './contract.js'
import { SecretLedger } from './secrets.js'

export const UPSTREAM_TIMEOUT_MS = 700
/** Comfortably past UPSTREAM_TIMEOUT_MS, and past the token endpoint's whole-second timeout. */
export const SLOW_MS = 1600

export type FaultStack = Awaited<ReturnType<typeof startFaultStack>>

export async function startFaultStack (env: Record<string, string> = {}) {
  const stack = await startStack({
    emulator: { clientSecret: randomBytes(24).toString('base64url') },
    env: {
      OAUTH_SCOPES: 'basic user.info upload',
      UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS),
      ...UNLIMITED_RATES,
      ...env
    }
  })
  const ledger = new SecretLedger()
  const browsers: Browser[] = []
  const cookieName = stack.bff.config.session.cookieName

  const browser = (): Browser => {
    const created = stack.bff.browser()
    browsers.push(created)
    return created
  }
  const signedIn = async (): Promise<Browser> => {
    const created = browser()
    const { callback } = await ledger.signIn(created)
    if (callback.status !== 302) throw new Error(`sign-in answered ${callback.status}`)
    return created
  }

  return {
    ...stack,
    cookieName,
    ledger,
    browser,
    signedIn,
    /**
     * A signed-in browser with an upload registered, whose access token has expired: its next
     * upstream call must refresh first. Tokens issued meanwhile live 1 s; later ones an hour.
     */
    async expiredSession (): Promise<{ browser: Browser, ulid: string }> {
      stack.emulator.configure({ accessTokenTtl: 1 })
      let prepared
      try {
        const created = await signedIn()
        prepared = { browser: created, ulid: await registered(created) }
      } finally {
        stack.emulator.configure({ accessTokenTtl: 3600 })
      }
      await sleep(1100)
      return prepared
    },
    async freshSession (): Promise<{ browser: Browser, ulid: string }> {
      const created = await signedIn()
      return { browser: created, ulid: await registered(created) }
    },
    /** Every secret this stack handed out, searched for in everything media-bff logged. */
    async leaks (): Promise<{ leaks: string[], secrets: number, lines: number }> {
      for (const each of browsers) ledger.addCookies(each)
      await ledger.addEmulator(stack.emulator)
      const logs = stack.bff.logs.join('')
      return { leaks: ledger.leaksIn(logs), secrets: ledger.size, lines: stack.bff.logs.length }
    }
  }
}

async function registered (browser: Browser): Promise<string> {
  const answer = await browser.post('/uploads/register', { folder_id: 0 })
  if (answer.status !== 200) throw new Error(`register answered ${answer.status}: ${answer.text}`)
  return answer.json().ulid
}

/**
 * The session survived: no cleared cookie, still signed in, and the same cookie works for `again`
 * once the fault is gone. A refresh still under way when the fault clears may hold `again` at 503
 * for a moment, so 503 is retried for a few seconds; any other answer counts at once.
 */
export async function checkSessionKept (t: Test, s: FaultStack, browser: Browser, answer: HttpResponse, again: () => Promise<HttpResponse>): Promise<void> {
  t.notOk(clearsCookie(answer, s.cookieName), 'the session cookie is not cleared')
  const session = await browser.get('/auth/session')
  t.equal(session.json().authenticated, true, '/auth/session still signed in')
  const deadline = Date.now() + 5000
  let recovered = await again()
  while (recovered.status === 503 && Date.now() < deadline) {
    await sleep(250)
    recovered = await again()
  }
  t.equal(recovered.status, 200, `after recovery the same cookie works (${recovered.status} ${recovered.text.slice(0, 120)})`)
}
