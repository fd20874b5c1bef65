// Drives a sign-in the way a browser does: /auth/login → the emulator's consent page → its form
// posted as a person would (user + decision) → the callback on media-bff.
import type { Browser, HttpResponse } from './http-client.js'

export interface SignInOptions {
  user?: string
  decision?: 'approve' | 'deny'
  loginPath?: string
}

export interface SignInResult {
  /** media-bff's answer to the callback. */
  callback: HttpResponse
  /** The callback URL the authorization server sent the browser to. */
  callbackUrl: string
  /** The authorization URL media-bff redirected to. */
  authorizeUrl: string
}

/** A sign-in that asks to come back to /back, so a completed one ends there. */
export const LOGIN_TO_BACK = '/auth/login?return_to=/back'

export async function startLogin (browser: Browser, loginPath = '/auth/login'): Promise<string> {
  const login = await browser.navigate(loginPath)
  if (login.status !== 302 || login.location === undefined) throw new Error(`login answered ${login.status}: ${login.text}`)
  return login.location
}

/** Posts the emulator's consent form for an authorization URL; returns where it redirects. */
export async function consent (browser: Browser, authorizeUrl: string, user = 'alice', decision: 'approve' | 'deny' = 'approve'): Promise<string> {
  const page = await browser.navigate(authorizeUrl)
  if (page.status !== 200) throw new Error(`authorize page answered ${page.status}: ${page.text}`)
  const form = new URLSearchParams()
  for (const match of page.text.matchAll(/<input[^>]*type="hidden"[^>]*>/g)) {
    const name = /name="([^"]*)"/.exec(match[0])?.[1]
    const value = /value="([^"]*)"/.exec(match[0])?.[1] ?? ''
    if (name !== undefined) form.append(name, unescapeHtml(value))
  }
  form.set('user', user)
  form.set('decision', decision)
  const action = /<form[^>]*action="([^"]*)"/.exec(page.text)?.[1]
  const target = action === undefined ? authorizeUrl : new URL(unescapeHtml(action), authorizeUrl).href
  const answer = await browser.fetch('POST', target, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() })
  if (answer.status !== 302 || answer.location === undefined) throw new Error(`consent answered ${answer.status}: ${answer.text}`)
  return answer.location
}

/** Maps a callback URL on PUBLIC_URL to the address the test server really listens on. */
export function onServer (browser: Browser, callbackUrl: string): string {
  const url = new URL(callbackUrl)
  return `${browser.baseUrl}${url.pathname}${url.search}`
}

export async function signIn (browser: Browser, options: SignInOptions = {}): Promise<SignInResult> {
  const authorizeUrl = await startLogin(browser, options.loginPath)
  const callbackUrl = await consent(browser, authorizeUrl, options.user ?? 'alice', options.decision ?? 'approve')
  const callback = await browser.navigate(onServer(browser, callbackUrl))
  return { callback, callbackUrl, authorizeUrl }
}

/**
 * A sign-in against a stand-in authorization server that redirects straight back to the callback,
 * with no consent page: /auth/login → the authorization URL → the callback. Returns where the
 * callback sends the browser, or undefined if it does not redirect; no step throws, because the
 * tests that use it check that Location, whatever the stand-in made media-bff answer.
 */
export async function signInWithoutConsent (browser: Browser, loginPath = '/auth/login'): Promise<string | undefined> {
  const login = await browser.navigate(loginPath)
  const authorize = await browser.navigate(login.location ?? '')
  const callback = await browser.navigate(authorize.location ?? '')
  return callback.location
}

function unescapeHtml (value: string): string {
  return value.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')
}
