// Login transactions: everything the callback needs to finish one sign-in (PKCE verifier, return
// path, scopes, tenant), sealed with the token keys (AES-256-GCM, bound to its `state`) into a
// cookie of the browser that started it, one cookie per sign-in so that many tabs can sign in at
// once. Starting a sign-in writes nothing to any store: GET /auth/login needs no sign-in, and a
// flood of it from any number of addresses must not take room that signed-in users need (a full
// Redis refuses the refresh lock and grant writes of everyone). The cookie is also the binding
// to the browser: a callback replayed in another browser has no cookie and is refused (login CSRF).
//
// Single use is enforced once a callback brings a valid sealed transaction AND the authorization
// server has accepted its code: only then is a small marker written under the state (claim), for
// what is left of the transaction's lifetime. So store writes happen only for sign-ins a real
// account completed; before that, the authorization server's own single-use code and PKCE guard
// a replayed callback.
//
// A browser keeps at most maxPerBrowser (LOGIN_MAX_PER_BROWSER) sign-ins, and at most
// MAX_COOKIE_BYTES of them (they travel with every request until used; proxies cap a header line
// at 8 KiB): starting one more drops the oldest. Dropping rather than refusing is what a person
// with many tabs expects: the sign-in they just clicked works, and what goes is the one started
// longest ago, most likely in a tab they closed or forgot.
import { createHash } from 'node:crypto'
import type { KeyValueStore } from '../store/key-value-store.js'
import type { TokenCipher } from '../store/token-cipher.js'
import type { LoginStateSigner } from './login-state.js'

export interface LoginTransaction {
  tenant: string
  codeVerifier: string
  returnTo: string
  /** Scopes asked for in this authorization request. */
  scopes: string[]
  /** Scopes newly asked for on top of what the session had (incremental authorization). */
  addedScopes: string[]
  createdAt: number
}

/** What the browser's login cookies amount to: bytes of name=value across all of them. */
export const MAX_COOKIE_BYTES = 4096

export interface LoginTransactionOptions {
  cipher: TokenCipher
  /** Where used states are marked; written only after a code was accepted. */
  store: KeyValueStore
  states: LoginStateSigner
  /** Names every login cookie: `${cookiePrefix}<slot>`. */
  cookiePrefix: string
  ttlMs: number
  /** Open sign-ins kept per browser; the oldest is dropped beyond it. */
  maxPerBrowser: number
}

export interface StartedLogin {
  state: string
  cookie: { name: string, value: string }
  /** Login cookies of older sign-ins to clear: beyond the cap, expired or unreadable. */
  dropped: string[]
}

export type OpenedLogin =
  | { kind: 'open', transaction: LoginTransaction, cookieName: string }
  /** Forged, expired, already used, or its cookie cannot be opened (cookieName: clear it). */
  | { kind: 'invalid', cookieName?: string }
  /** A fresh state media-bff issued, unused, and this browser has no cookie for it. */
  | { kind: 'other_browser' }

type Cookies = Readonly<Record<string, string | undefined>>

const SLOT_PATTERN = /^[A-Za-z0-9_-]{16}$/

export function createLoginTransactions (options: LoginTransactionOptions) {
  const { cipher, store, states, cookiePrefix, ttlMs, maxPerBrowser } = options
  if (!Number.isInteger(maxPerBrowser) || maxPerBrowser < 1) throw new RangeError('maxPerBrowser must be a positive integer')
  const cookieNameOf = (state: string): string => `${cookiePrefix}${digest(state).slice(0, 16)}`
  const usedKey = (state: string): string => `login-used:${digest(state)}`
  const aad = (state: string): string => `login:${state}`

  return {
    cookieNameOf,

    start (transaction: Omit<LoginTransaction, 'createdAt'>, cookies: Cookies, now = Date.now()): StartedLogin {
      const state = states.issue(now)
      const sealed = cipher.encrypt(JSON.stringify({ ...transaction, createdAt: now }), aad(state))
      // The creation time leads in clear, for choosing what to drop at the next start; what the
      // callback relies on is the sealed copy.
      const cookie = { name: cookieNameOf(state), value: `${now.toString(36)}.${sealed}` }
      return { state, cookie, dropped: overflowing(cookies, cookie, now) }
    },

    /** The transaction for `state` from this browser's cookies, or why there is none. */
    async open (state: string, cookies: Cookies, now = Date.now()): Promise<OpenedLogin> {
      const issuedAt = states.issuedAt(state)
      const cookieName = cookieNameOf(state)
      const present = cookies[cookieName] === undefined ? {} : { cookieName }
      if (issuedAt === undefined || issuedAt + ttlMs <= now) return { kind: 'invalid', ...present }
      if (await store.get(usedKey(state)) !== undefined) return { kind: 'invalid', ...present }
      const value = cookies[cookieName]
      if (value === undefined) return { kind: 'other_browser' }
      const transaction = openSealed(value.slice(value.indexOf('.') + 1), state)
      if (transaction === undefined || transaction.createdAt + ttlMs <= now) return { kind: 'invalid', cookieName }
      return { kind: 'open', transaction, cookieName }
    },

    /**
     * Marks the state used; false when a racing callback already did. Called once the code was
     * accepted, so only completed sign-ins ever write here.
     */
    async claim (state: string, transaction: LoginTransaction, now = Date.now()): Promise<boolean> {
      const left = transaction.createdAt + ttlMs - now
      return await store.setIfAbsent(usedKey(state), '1', Math.max(1000, left))
    }
  }

  function openSealed (sealed: string, state: string): LoginTransaction | undefined {
    try {
      return JSON.parse(cipher.decrypt(sealed, aad(state))) as LoginTransaction
    } catch {
      return undefined
    }
  }

  /** Login cookies to clear so that, with `added`, the browser stays within both caps. */
  function overflowing (cookies: Cookies, added: { name: string, value: string }, now: number): string[] {
    const present = Object.entries(cookies).flatMap(([name, value]) => {
      if (!name.startsWith(cookiePrefix) || !SLOT_PATTERN.test(name.slice(cookiePrefix.length)) || value === undefined) return []
      const createdAt = parseInt(value.slice(0, value.indexOf('.')), 36)
      return [{ name, createdAt: Number.isFinite(createdAt) ? createdAt : 0, bytes: name.length + value.length + 1 }]
    }).sort((a, b) => b.createdAt - a.createdAt)
    let count = 1
    let bytes = added.name.length + added.value.length + 1
    const dropped: string[] = []
    for (const cookie of present) {
      const keep = cookie.createdAt + ttlMs > now && count < maxPerBrowser && bytes + cookie.bytes <= MAX_COOKIE_BYTES
      if (keep) {
        count++
        bytes += cookie.bytes
      } else {
        dropped.push(cookie.name)
      }
    }
    return dropped
  }
}

export type LoginTransactions = ReturnType<typeof createLoginTransactions>

function digest (value: string): string {
  return createHash('sha256').update(value).digest('base64url')
}
