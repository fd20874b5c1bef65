// Login transactions: everything the callback needs to finish one sign-in, stored server-side
// under its `state`, single use, ten minutes by default (LOGIN_TIMEOUT). Each is bound to the browser that started it by a
// random value kept in a pre-login cookie, so a callback replayed in another browser is refused
// (login CSRF). Several may be open at once, one per tab.
//
// At most maxPerBrowser (LOGIN_MAX_PER_BROWSER) are kept per binding: each browser has a short
// list of its transactions' keys, and starting one more drops the oldest. Dropping rather than
// refusing is what a person with many tabs expects: the sign-in they just clicked works, and what
// goes is the one started longest ago, most likely in a tab they closed or forgot. Refusing would
// lock them out until abandoned attempts expired. A browser that sends no binding cookie gets a
// new binding, so the cap bounds one browser; the per-address rate limit bounds many.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { KeyValueStore } from '../store/key-value-store.js'
import type { TokenCipher } from '../store/token-cipher.js'

export interface LoginTransaction {
  tenant: string
  codeVerifier: string
  returnTo: string
  /** Scopes asked for in this authorization request. */
  scopes: string[]
  /** Scopes newly asked for on top of what the session had (incremental authorization). */
  addedScopes: string[]
  /** sha256 of the browser-binding cookie value. */
  browserBinding: string
  createdAt: number
}

/**
 * Another sign-in from the same browser changed its list of transactions every time this one
 * tried to add itself: many sign-ins started at the same instant from one browser.
 */
export class LoginContentionError extends Error {
  constructor () {
    super('too many sign-ins started at once from one browser')
    this.name = 'LoginContentionError'
  }
}

/** Rounds of compare-and-set on a browser's list before giving up; uncontended it takes one. */
const LIST_UPDATE_ATTEMPTS = 5

export function newBrowserBinding (): string {
  return randomBytes(32).toString('base64url')
}

export function hashBinding (binding: string): string {
  return createHash('sha256').update(binding).digest('base64url')
}

export interface LoginTransactionOptions {
  ttlMs: number
  /** Open transactions kept per browser binding; the oldest is dropped beyond it. */
  maxPerBrowser: number
}

export function createLoginTransactions (store: KeyValueStore, cipher: TokenCipher, { ttlMs, maxPerBrowser }: LoginTransactionOptions) {
  if (!Number.isInteger(maxPerBrowser) || maxPerBrowser < 1) throw new RangeError('maxPerBrowser must be a positive integer')
  const key = (state: string): string => `tx:${hashBinding(state)}`
  // Keyed by the binding's hash, which the transactions hold anyway; the list holds only keys.
  const listKey = (bindingHash: string): string => `txb:${bindingHash}`

  /** Adds a transaction key to its browser's list and deletes what falls beyond the cap. */
  const enlist = async (bindingHash: string, transactionKey: string): Promise<void> => {
    for (let attempt = 0; attempt < LIST_UPDATE_ATTEMPTS; attempt++) {
      const current = await store.get(listKey(bindingHash))
      const now = Date.now()
      const entries = parseList(current).filter(([, expiresAt]) => expiresAt > now)
      entries.push([transactionKey, now + ttlMs])
      const dropped = entries.splice(0, Math.max(0, entries.length - maxPerBrowser))
      if (await store.compareAndSet(listKey(bindingHash), current, JSON.stringify(entries), ttlMs)) {
        for (const [droppedKey] of dropped) await store.delete(droppedKey)
        return
      }
    }
    throw new LoginContentionError()
  }

  return {
    async save (state: string, transaction: LoginTransaction): Promise<void> {
      // The code verifier is a secret: sealed like tokens, bound to its state.
      const sealed = cipher.encrypt(JSON.stringify(transaction), `tx:${state}`)
      // Written before it is listed, so that whatever a racing sign-in of the same browser drops
      // from the list is already there to delete; unlisted, it is taken back.
      await store.set(key(state), sealed, ttlMs)
      try {
        await enlist(transaction.browserBinding, key(state))
      } catch (error) {
        await store.delete(key(state)).catch(() => {})
        throw error
      }
    },

    /**
     * Takes the transaction for `state` if this browser started it. A transaction presented by
     * another browser is left in place for its owner, so a replay cannot burn the real login.
     */
    async consume (state: string, binding: string | undefined): Promise<LoginTransaction | 'unknown' | 'foreign_browser'> {
      const sealed = await store.get(key(state))
      if (sealed === undefined) return 'unknown'
      const transaction = open(sealed, state)
      if (transaction === undefined) return 'unknown'
      if (binding === undefined || !sameHash(hashBinding(binding), transaction.browserBinding)) return 'foreign_browser'
      // take() is the atomic single-use step: of two racing callbacks only one gets it.
      const taken = await store.take(key(state))
      if (taken === undefined) return 'unknown'
      return transaction
    }
  }

  function open (sealed: string, state: string): LoginTransaction | undefined {
    try {
      return JSON.parse(cipher.decrypt(sealed, `tx:${state}`)) as LoginTransaction
    } catch {
      return undefined
    }
  }
}

export type LoginTransactions = ReturnType<typeof createLoginTransactions>

/** A browser's list: [transaction key, expiry in epoch ms], oldest first. Unreadable: empty. */
function parseList (value: string | undefined): Array<[string, number]> {
  if (value === undefined) return []
  try {
    const parsed: unknown = JSON.parse(value)
    if (!Array.isArray(parsed)) return []
    return parsed.filter((entry): entry is [string, number] =>
      Array.isArray(entry) && typeof entry[0] === 'string' && typeof entry[1] === 'number')
  } catch {
    return []
  }
}

function sameHash (a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}
