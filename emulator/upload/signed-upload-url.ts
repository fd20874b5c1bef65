// The pre-authorized upload URL: HMAC-SHA256 over the ulid and the expiry, so the URL itself is
// the credential (no Authorization header needed) and any edit to it is detected.
import { createHmac } from 'node:crypto'
import { sameSecret } from '../random-token.js'

function signature (ulid: string, expires: number, key: string): string {
  return createHmac('sha256', key).update(`${ulid}.${expires}`).digest('base64url')
}

export function signedUploadUrl (uploadOrigin: string, ulid: string, expires: number, key: string): string {
  return `${uploadOrigin}/upload/${ulid}?expires=${expires}&sig=${signature(ulid, expires, key)}`
}

/** The expiry (Unix seconds) of a genuine URL, or undefined when the URL was tampered with. */
export function verifiedExpiry (ulid: string, query: URLSearchParams, key: string): number | undefined {
  const expiresValues = query.getAll('expires')
  const sigValues = query.getAll('sig')
  if (expiresValues.length !== 1 || sigValues.length !== 1) return undefined
  const expiresText = expiresValues[0] as string
  if (!/^\d{1,12}$/.test(expiresText)) return undefined
  const expires = Number(expiresText)
  return sameSecret(sigValues[0] as string, signature(ulid, expires, key)) ? expires : undefined
}
