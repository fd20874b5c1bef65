// What docs/reference/http-api.md says an answer must look like, as one checker the hardening
// suites share: it returns the ways an answer breaks the contract (empty when it keeps it), so a
// table case can report all of them at once.
import type { HttpResponse } from '../helpers/http-client.js'

export type Expectation =
  /** A contract error: this status, this `error` code, a `message` for a person. */
  | { status: number, error: string }
  /** A documented success for this input (e.g. /auth/session without a valid session). */
  | { status: number, body: Record<string, unknown> }
  /** The callback's human page (400, HTML) with this reference code. */
  | { page: string }
  /** A navigation that ends back on the site: 302 to exactly this local path. */
  | { redirect: string }

const SNAKE_CASE = /^[a-z][a-z0-9_]*$/

export function describeExpectation (expected: Expectation): string {
  if ('page' in expected) return `400 page ${expected.page}`
  if ('redirect' in expected) return `302 ${expected.redirect}`
  if ('error' in expected) return `${expected.status} ${expected.error}`
  return `${expected.status} ${JSON.stringify(expected.body)}`
}

export function contractProblems (answer: HttpResponse, expected: Expectation): string[] {
  const problems: string[] = []
  const got = `${answer.status} ${answer.text.slice(0, 200)}`
  // A 5xx is only ever right where the contract names it (502, 503, 504 for upstream and store trouble).
  if (answer.status >= 500 && !('status' in expected && expected.status === answer.status)) problems.push(`an unexpected ${answer.status}: ${got}`)
  const type = String(answer.headers['content-type'] ?? '')

  if ('page' in expected) {
    if (answer.status !== 400) problems.push(`status ${answer.status}, expected the 400 human page: ${got}`)
    if (!type.startsWith('text/html')) problems.push(`content-type "${type}", expected text/html: ${got}`)
    if (!answer.text.includes(`Reference: ${expected.page}`)) problems.push(`the page does not name ${expected.page}: ${got}`)
    if (/<script/i.test(answer.text)) problems.push('the page carries a <script> (reflected input?)')
    return problems
  }
  if ('redirect' in expected) {
    if (answer.status !== 302) problems.push(`status ${answer.status}, expected 302: ${got}`)
    if (answer.location !== expected.redirect) problems.push(`Location ${JSON.stringify(answer.location)}, expected ${JSON.stringify(expected.redirect)}`)
    // A Location must be header-safe (visible ASCII only) and a local path, or an address on the
    // one website origin the bad-input stack allows (ALLOWED_ORIGINS), never another origin.
    const onWebsite = answer.location?.startsWith(`${WEBSITE_ORIGIN}/`) === true
    if (answer.location !== undefined && (!/^[\x21-\x7e]*$/.test(answer.location) || (!onWebsite && (!answer.location.startsWith('/') || answer.location.startsWith('//'))))) {
      problems.push(`Location ${JSON.stringify(answer.location)} is not a plain local path or an address on the website`)
    }
    return problems
  }

  if (answer.status !== expected.status) problems.push(`status ${answer.status}, expected ${expected.status}: ${got}`)
  if (!type.startsWith('application/json')) problems.push(`content-type "${type}", expected application/json: ${got}`)
  let body: Record<string, unknown>
  try {
    body = answer.json()
  } catch {
    problems.push(`the body is not JSON: ${got}`)
    return problems
  }
  if ('body' in expected) {
    for (const [key, value] of Object.entries(expected.body)) {
      if (JSON.stringify(body[key]) !== JSON.stringify(value)) problems.push(`${key} is ${JSON.stringify(body[key])}, expected ${JSON.stringify(value)}`)
    }
    return problems
  }
  if (body.error !== expected.error) problems.push(`error ${JSON.stringify(body.error)}, expected ${expected.error}`)
  if (typeof body.error !== 'string' || !SNAKE_CASE.test(body.error)) problems.push(`error ${JSON.stringify(body.error)} is not a snake_case code`)
  if (typeof body.message !== 'string' || body.message.trim() === '') problems.push('no message for a person')
  if ((expected.error === 'login_required' || expected.error === 'reauth_required') && body.login_url !== '/auth/login') {
    problems.push('no login_url')
  }
  if ((expected.status === 429 || expected.status === 503) && !/^\d+$/.test(String(answer.headers['retry-after']))) {
    problems.push('no Retry-After')
  }
  return problems
}

/** The website origin the bad-input stack lists in ALLOWED_ORIGINS (bad-input-stack.ts). */
export const WEBSITE_ORIGIN = 'https://www.example.org'

/** True when the answer ends one of the browser's login cookies (`<session cookie>-login-<slot>`): drops it, or spends its slot. */
export function clearsLoginCookie (answer: HttpResponse, sessionCookieName: string): boolean {
  const prefix = `${sessionCookieName}-login-`
  // A slot whose sign-in is over keeps only when that sign-in began: `<time>.`, nothing sealed.
  const spent = (line: string): boolean => /^[^=]+=[0-9a-z]+\.;/.test(line)
  return answer.setCookies.some((line) => line.startsWith(prefix) && (spent(line) || clearsCookie({ ...answer, setCookies: [line] }, line.slice(0, line.indexOf('=')))))
}

/** True when the answer tells the browser to drop this cookie (empty value, Max-Age=0 or a past Expires). */
export function clearsCookie (answer: HttpResponse, name: string): boolean {
  return answer.setCookies.some((line) => {
    const [pair = '', ...attributes] = line.split(';')
    if (pair.slice(0, pair.indexOf('=')).trim() !== name) return false
    if (pair.slice(pair.indexOf('=') + 1).trim() === '') return true
    return attributes.some((attribute) => {
      const [key = '', value = ''] = attribute.trim().split('=')
      return (key.toLowerCase() === 'max-age' && Number(value) <= 0) || (key.toLowerCase() === 'expires' && Date.parse(value) <= Date.now())
    })
  })
}
