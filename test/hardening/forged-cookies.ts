// Session cookies an attacker can make: the victim's id with a damaged signature, the id signed
// with a secret the server does not hold, a well-signed id the store never issued. The cookie is
// `<id>.<base64 HMAC-SHA256 of id, unpadded>` as @fastify/cookie signs it.
import { createHmac, randomBytes } from 'node:crypto'

export function signSessionId (id: string, secret: string): string {
  return `${id}.${createHmac('sha256', secret).update(id).digest('base64').replace(/=+$/, '')}`
}

export function splitCookie (cookieValue: string): { id: string, signature: string } {
  const value = decodeURIComponent(cookieValue)
  const at = value.lastIndexOf('.')
  return { id: value.slice(0, at), signature: value.slice(at + 1) }
}

/** The same id with one character of the signature changed. */
export function flipSignature (cookieValue: string): string {
  const { id, signature } = splitCookie(cookieValue)
  const last = signature.at(-1) === 'A' ? 'B' : 'A'
  return encodeURIComponent(`${id}.${signature.slice(0, -1)}${last}`)
}

export function signedWithOtherSecret (cookieValue: string): string {
  return encodeURIComponent(signSessionId(splitCookie(cookieValue).id, 'another-secret-that-media-bff-never-had-0123'))
}

/** A correctly signed id that names no session in the store. */
export function unknownSession (secret: string): string {
  return encodeURIComponent(signSessionId(randomBytes(24).toString('base64url'), secret))
}
