// Login transactions: everything the callback needs to finish one sign-in (PKCE verifier, return
// path, scopes, tenant), sealed with the token keys (AES-256-GCM, bound to its `state`) into a
// cookie of the browser that started it. Starting a sign-in writes nothing to any store: GET
// /auth/login needs no sign-in, and a flood of it from any number of addresses must not take room
// that signed-in users need. The cookie is also the binding to the browser: a callback replayed
// in another browser has no cookie and is refused (login CSRF).
//
// Single use is enforced once a callback brings a valid sealed transaction AND the authorization
// server has accepted its code: only then is a small marker written under the state (claim), for
// what is left of the transaction's lifetime. So store writes happen only for sign-ins a real
// account completed; before that, the authorization server's own single-use code and PKCE guard
// a replayed callback.
//
// A browser holds its sign-ins in a few fixed slots (`<prefix>0` .. `<prefix>N-1`, at most
// MAX_SLOTS), each at most SLOT_BYTES: whatever its tabs do at once, its login cookies stay within
// MAX_COOKIE_BYTES, so they can never push its requests over a proxy's header limit and lock it
// out. A request sees only the cookies it carried, so tabs starting sign-ins at the same moment
// cannot agree on slots: each takes a free slot at random (else the oldest), and one that lost
// its slot to a newer sign-in is told so at the callback ('superseded': try again), never
// mistaken for another browser's.
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
  /**
   * The session this browser was signed in with when the sign-in began, which the sign-in will
   * replace. The session cookie is SameSite=Strict, so the callback (a navigation the media
   * service starts) arrives without it; this sealed cookie, SameSite=Lax, carries its id there.
   */
  previousSid?: string
  /**
   * The key binding (DEVICE_BOUND_SESSIONS) of that session, when the sign-in began in the browser
   * that holds the key (it showed the short-lived cookie): only then does the new session keep it.
   */
  boundBy?: string
  /**
   * The sign-in runs in a popup (`popup=` on /auth/login): its last page tells the page that opened
   * it, by this nonce, instead of taking the browser back to returnTo.
   */
  popup?: string
  /**
   * That popup was opened by a page in another site's frame (FRAME_ANCESTORS): the frame holds a
   * session cookie of its own partition, so the popup hands the new session over to it, to be
   * taken only with the verifier whose SHA-256 (base64url) this is.
   */
  framed?: string
  createdAt: number
}

/** Slots one browser may have; with SLOT_BYTES each, its login cookies never pass 4 KiB. */
export const MAX_SLOTS = 3
/** What one login cookie may take, name=value. */
export const SLOT_BYTES = 1365
/** What the browser's login cookies amount to at most: bytes of name=value across all of them. */
export const MAX_COOKIE_BYTES = MAX_SLOTS * SLOT_BYTES

export interface LoginTransactionOptions {
  cipher: TokenCipher
  /** Where used states are marked; written only after a code was accepted. */
  store: KeyValueStore
  states: LoginStateSigner
  /** Names every login cookie: `${cookiePrefix}<slot>`. */
  cookiePrefix: string
  ttlMs: number
  /** Slots per browser (1 to MAX_SLOTS): sign-ins open at once in one browser. */
  maxPerBrowser: number
  /** The tenant a transaction need not name (the default one). */
  defaultTenant?: string
}

export interface StartedLogin {
  state: string
  cookie: { name: string, value: string }
  /** Login cookies to clear: those of the format before slots, while browsers still carry them. */
  dropped: string[]
}

export type OpenedLogin =
  | { kind: 'open', transaction: LoginTransaction, cookieName: string }
  /** Forged, expired, already used, or its cookie cannot be opened (cookieName: clear it). */
  | { kind: 'invalid', cookieName?: string }
  /** A fresh state of ours whose slot a newer sign-in of this browser has taken since. */
  | { kind: 'superseded' }
  /** A fresh state media-bff issued, unused, and this browser has no cookie for it. */
  | { kind: 'other_browser' }

/** The transaction does not fit in a slot (a very long return path). */
export class LoginTooLargeError extends Error {
  constructor (bytes: number) {
    super(`the sign-in's cookie would take ${bytes} bytes, more than the ${SLOT_BYTES} a slot holds`)
    this.name = 'LoginTooLargeError'
  }
}

type Cookies = Readonly<Record<string, string | undefined>>

/** Login cookies of the format before slots: one per sign-in, named by a digest of its state. */
const LEGACY_NAME = /^[A-Za-z0-9_-]{16}$/

export function createLoginTransactions (options: LoginTransactionOptions) {
  const { cipher, store, states, cookiePrefix, ttlMs, maxPerBrowser, defaultTenant } = options
  if (!Number.isInteger(maxPerBrowser) || maxPerBrowser < 1 || maxPerBrowser > MAX_SLOTS) throw new RangeError(`maxPerBrowser must be a whole number from 1 to ${MAX_SLOTS}`)
  const slotNames = Array.from({ length: maxPerBrowser }, (_, slot) => `${cookiePrefix}${slot}`)
  const legacyNameOf = (state: string): string => `${cookiePrefix}${digest(state).slice(0, 16)}`
  const usedKey = (state: string): string => `login-used:${digest(state)}`
  const aad = (state: string): string => `login:${state}`
  /** When a slot's sign-in began (in clear, ahead of the sealed part), or 0 when it cannot be told. */
  const createdAtOf = (value: string | undefined): number => {
    const time = parseInt(value?.slice(0, value.indexOf('.')) ?? '', 36)
    return Number.isFinite(time) ? time : 0
  }

  return {
    start (transaction: Omit<LoginTransaction, 'createdAt'>, cookies: Cookies, now = Date.now()): StartedLogin {
      const state = states.issue(now)
      const sealed = cipher.encrypt(pack({ ...transaction, createdAt: now }, defaultTenant), aad(state))
      const name = chooseSlot(cookies, now)
      const cookie = { name, value: `${now.toString(36)}.${sealed}` }
      const bytes = name.length + cookie.value.length + 1
      if (bytes > SLOT_BYTES) throw new LoginTooLargeError(bytes)
      const dropped = Object.keys(cookies).filter((other) => other.startsWith(cookiePrefix) && LEGACY_NAME.test(other.slice(cookiePrefix.length)))
      return { state, cookie, dropped }
    },

    /** The transaction for `state` from this browser's cookies, or why there is none. */
    async open (state: string, cookies: Cookies, now = Date.now()): Promise<OpenedLogin> {
      const issuedAt = states.issuedAt(state)
      if (issuedAt === undefined) return { kind: 'invalid' }
      const found = findOpening(state, cookies)
      const present = found === undefined ? {} : { cookieName: found.cookieName }
      const createdAt = found?.transaction.createdAt ?? issuedAt
      if (Math.min(issuedAt, createdAt) + ttlMs <= now) return { kind: 'invalid', ...present }
      if (await store.get(usedKey(state)) !== undefined) return { kind: 'invalid', ...present }
      if (found !== undefined) return { kind: 'open', ...found }
      // A slot now holds a sign-in this browser began at or after this one: it took the slot.
      if (slotNames.some((slot) => cookies[slot] !== undefined && createdAtOf(cookies[slot]) >= issuedAt)) return { kind: 'superseded' }
      return { kind: 'other_browser' }
    },

    /**
     * What a slot holds once its sign-in is over (completed or failed at the callback): the time it
     * began and nothing sealed, so a sign-in that lost this slot to it is still told it was
     * superseded. Undefined for a cookie of the format before slots: it is cleared instead.
     */
    spentValue (cookieName: string, transaction: LoginTransaction): string | undefined {
      return slotNames.includes(cookieName) ? `${transaction.createdAt.toString(36)}.` : undefined
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

  /** A free slot (none, spent, expired or unreadable) at random, so tabs racing each other spread out; else the oldest. */
  function chooseSlot (cookies: Cookies, now: number): string {
    const isFree = (value: string | undefined): boolean => value === undefined || value.endsWith('.') || createdAtOf(value) + ttlMs <= now
    const free = slotNames.filter((slot) => isFree(cookies[slot]))
    if (free.length > 0) return free[Math.floor(Math.random() * free.length)] as string
    return slotNames.reduce((oldest, slot) => createdAtOf(cookies[slot]) < createdAtOf(cookies[oldest]) ? slot : oldest)
  }

  /** The slot whose sealed transaction opens under this state (only that one can: the state is its AAD). */
  function findOpening (state: string, cookies: Cookies): { transaction: LoginTransaction, cookieName: string } | undefined {
    for (const cookieName of [...slotNames, legacyNameOf(state)]) {
      const value = cookies[cookieName]
      if (value === undefined) continue
      const transaction = openSealed(value.slice(value.indexOf('.') + 1), state)
      if (transaction !== undefined) return { transaction, cookieName }
    }
    return undefined
  }

  function openSealed (sealed: string, state: string): LoginTransaction | undefined {
    try {
      return unpack(cipher.decrypt(sealed, aad(state)), defaultTenant)
    } catch {
      return undefined
    }
  }
}

export type LoginTransactions = ReturnType<typeof createLoginTransactions>

/** A transaction in few bytes: short keys, scopes as one string, the default tenant left out. */
function pack (transaction: LoginTransaction, defaultTenant: string | undefined): string {
  return JSON.stringify({
    ...(transaction.tenant === defaultTenant ? {} : { t: transaction.tenant }),
    v: transaction.codeVerifier,
    r: transaction.returnTo,
    s: transaction.scopes.join(' '),
    a: transaction.addedScopes.join(' '),
    ...(transaction.previousSid === undefined ? {} : { p: transaction.previousSid }),
    ...(transaction.boundBy === undefined ? {} : { b: transaction.boundBy }),
    ...(transaction.popup === undefined ? {} : { o: transaction.popup }),
    ...(transaction.framed === undefined ? {} : { f: transaction.framed }),
    c: transaction.createdAt
  })
}

/** What pack wrote, or what cookies of the format before slots hold (the same fields, spelt out). */
function unpack (json: string, defaultTenant: string | undefined): LoginTransaction | undefined {
  const value = JSON.parse(json) as Record<string, unknown>
  if ('codeVerifier' in value) return value as unknown as LoginTransaction
  const { t = defaultTenant, v, r, s, a, p, b, o, f, c } = value
  if (typeof t !== 'string' || typeof v !== 'string' || typeof r !== 'string' || typeof s !== 'string' || typeof a !== 'string' || typeof c !== 'number') return undefined
  const optional = (field: unknown): field is string | undefined => field === undefined || typeof field === 'string'
  if (!optional(p) || !optional(b) || !optional(o) || !optional(f)) return undefined
  const words = (text: string): string[] => text === '' ? [] : text.split(' ')
  return { tenant: t, codeVerifier: v, returnTo: r, scopes: words(s), addedScopes: words(a), ...(p === undefined ? {} : { previousSid: p }), ...(b === undefined ? {} : { boundBy: b }), ...(o === undefined ? {} : { popup: o }), ...(f === undefined ? {} : { framed: f }), createdAt: c }
}

function digest (value: string): string {
  return createHash('sha256').update(value).digest('base64url')
}
