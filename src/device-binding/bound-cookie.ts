// The short-lived cookie of a device-bound session: which binding it speaks for and until when,
// signed (src/device-binding/macs.ts). Only a proof from the binding's key gets a new one
// (src/device-binding/device-binding.ts), so a copy taken from the browser is worth this long at
// most. Checked on every signed-in call of a bound session, without a word to the store.
import type { Macs } from './macs.js'

const PATTERN = /^([A-Za-z0-9_-]{22})\.([0-9a-z]{1,11})\.([A-Za-z0-9_-]{22})$/

/** Why a bound session's call was refused (the audit event's `reason`). */
export type BoundCookieFault = 'bound_cookie_missing' | 'bound_cookie_expired' | 'bound_cookie_invalid'

export interface BoundCookies {
  make: (bindingId: string, now: number, lifetimeMs: number) => string
  /** undefined when the cookie holds for this binding now; otherwise why not. */
  fault: (value: string | undefined, bindingId: string, now: number) => BoundCookieFault | undefined
  /** When a cookie media-bff made runs out (epoch ms), whatever binding it is for; else undefined. */
  expiresAt: (value: string | undefined) => number | undefined
}

export function createBoundCookies (macs: Macs): BoundCookies {
  const body = (bindingId: string, expires: string): string => `${bindingId}.${expires}`
  return {
    make (bindingId, now, lifetimeMs) {
      const expires = Math.ceil((now + lifetimeMs) / 1000).toString(36)
      return `${body(bindingId, expires)}.${macs.sign(body(bindingId, expires))}`
    },
    fault (value, bindingId, now) {
      if (value === undefined || value === '') return 'bound_cookie_missing'
      const match = PATTERN.exec(value)
      if (match === null) return 'bound_cookie_invalid'
      const [, id = '', expires = '', mac = ''] = match
      if (id !== bindingId || !macs.holds(body(id, expires), mac)) return 'bound_cookie_invalid'
      return parseInt(expires, 36) * 1000 < now ? 'bound_cookie_expired' : undefined
    },
    expiresAt (value) {
      const match = PATTERN.exec(value ?? '')
      if (match === null) return undefined
      const [, id = '', expires = '', mac = ''] = match
      return macs.holds(body(id, expires), mac) ? parseInt(expires, 36) * 1000 : undefined
    }
  }
}
