// Upload registrations remembered per sign-in, so finishing uses the finish URL the service gave
// us (never one from the browser), and only for uploads this sign-in registered and that have
// not expired. Stored apart from the session blob so concurrent registrations never overwrite
// each other.
import type { KeyValueStore } from '../store/key-value-store.js'
import { ULID_PATTERN } from '../media/read-registration.js'

export interface RememberedRegistration {
  ulid: string
  finishUrl: string
  tenant: string
  /** Epoch milliseconds. */
  expiresAt: number
}

const MIN_TTL_MS = 1000

export function createRegistrations (store: KeyValueStore) {
  const key = (owner: string, ulid: string): string => `upload:${owner}:${ulid}`
  return {
    async remember (owner: string, registration: RememberedRegistration): Promise<void> {
      const ttlMs = Math.max(MIN_TTL_MS, registration.expiresAt - Date.now())
      await store.set(key(owner, registration.ulid), JSON.stringify(registration), ttlMs)
    },

    /**
     * The registration `owner` made of `ulid` on `tenant`, if it has not expired. A registration
     * belongs to the tenant it was made on: a grant of another tenant never gets its finish URL.
     */
    async find (owner: string, ulid: string, tenant: string): Promise<RememberedRegistration | undefined> {
      if (!ULID_PATTERN.test(ulid)) return undefined
      const value = await store.get(key(owner, ulid))
      if (value === undefined) return undefined
      let registration: RememberedRegistration
      try {
        registration = JSON.parse(value) as RememberedRegistration
      } catch {
        // A damaged record is as good as none: the browser gets the same 404.
        return undefined
      }
      return registration.tenant === tenant && registration.expiresAt > Date.now() ? registration : undefined
    }
  }
}

export type Registrations = ReturnType<typeof createRegistrations>
