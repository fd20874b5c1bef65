// Collects every secret a suite handled (issued tokens, codes and states from callback URLs,
// the client secret, session and login cookie values) and searches captured logs for them.
//
// Every secret here is base64url text, or (a signed cookie) built from base64url runs, so the
// search looks only inside the log's base64url runs and compares windows of the secrets'
// lengths: one pass over megabytes of soak logs instead of one pass per secret.
import type { Browser } from '../helpers/http-client.js'
import { issuedTokens } from '../helpers/issued-tokens.js'
import { signIn, type SignInOptions, type SignInResult } from '../helpers/sign-in.js'

/** Shorter runs would match by chance; every secret of ours is 32+ random characters. */
const MIN_RUN = 16
const RUNS = new RegExp(`[A-Za-z0-9_-]{${MIN_RUN},}`, 'g')

export class SecretLedger {
  private readonly values = new Map<string, string>()

  add (kind: string, value: string | null | undefined): void {
    if (value === null || value === undefined) return
    for (const [run] of value.matchAll(RUNS)) this.values.set(run, kind)
  }

  /** The code and state of a callback URL the authorization server sent the browser to. */
  addCallback (callbackUrl: string | URL): void {
    const url = new URL(callbackUrl)
    this.add('code', url.searchParams.get('code'))
    this.add('state', url.searchParams.get('state'))
  }

  /** Every cookie value the browser holds now (session and login cookies). */
  addCookies (browser: Browser): void {
    for (const [name, value] of browser.cookies) this.add(`cookie ${name}`, decodeURIComponent(value))
  }

  /** signIn (test/helpers/sign-in.ts), noting the callback's code and state and the cookies it leaves. */
  async signIn (browser: Browser, options: SignInOptions = {}): Promise<SignInResult> {
    const result = await signIn(browser, options)
    this.addCallback(result.callbackUrl)
    this.addCookies(browser)
    return result
  }

  /** Every access and refresh token the emulator ever issued, and its client secret. */
  async addEmulator (emulator: { baseUrl: string, clientSecret: string }): Promise<void> {
    const tokens = await issuedTokens(emulator.baseUrl)
    for (const token of tokens.access) this.add('access token', token)
    for (const token of tokens.refresh) this.add('refresh token', token)
    if (emulator.clientSecret.length < MIN_RUN) throw new Error('give the emulator a client secret of 16+ characters so the log search can find it')
    this.add('client secret', emulator.clientSecret)
  }

  get size (): number { return this.values.size }

  /** How many of each kind were searched for, e.g. { code: 12, state: 12, ... }. */
  kinds (): Record<string, number> {
    const counts: Record<string, number> = {}
    for (const kind of this.values.values()) {
      const label = kind.startsWith('cookie') ? 'cookie' : kind
      counts[label] = (counts[label] ?? 0) + 1
    }
    return counts
  }

  /** The kinds of the secrets found in `text`, with how often (never the values: this is printed). */
  leaksIn (text: string): string[] {
    const lengths = [...new Set([...this.values.keys()].map((value) => value.length))]
    const found = new Map<string, number>()
    for (const [run] of text.matchAll(RUNS)) {
      for (const length of lengths) {
        for (let at = 0; at + length <= run.length; at++) {
          const kind = this.values.get(run.slice(at, at + length))
          if (kind !== undefined) found.set(kind, (found.get(kind) ?? 0) + 1)
        }
      }
    }
    return [...found].map(([kind, count]) => `${kind} ×${count}`)
  }
}
