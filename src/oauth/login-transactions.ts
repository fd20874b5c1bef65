// Login transactions: everything the callback needs to finish one sign-in, stored server-side
// under its `state`, single use, ten minutes by default (LOGIN_TIMEOUT). Each is bound to the browser that started it by a
// random value kept in a pre-login cookie, so a callback replayed in another browser is refused
// (login CSRF). Several may be open at once, one per tab.
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

export function newBrowserBinding (): string {
  return randomBytes(32).toString('base64url')
}

export function hashBinding (binding: string): string {
  return createHash('sha256').update(binding).digest('base64url')
}

export function createLoginTransactions (store: KeyValueStore, cipher: TokenCipher, { ttlMs }: { ttlMs: number }) {
  const key = (state: string): string => `tx:${hashBinding(state)}`

  return {
    async save (state: string, transaction: LoginTransaction): Promise<void> {
      // The code verifier is a secret: sealed like tokens, bound to its state.
      const sealed = cipher.encrypt(JSON.stringify(transaction), `tx:${state}`)
      await store.set(key(state), sealed, ttlMs)
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

function sameHash (a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}
