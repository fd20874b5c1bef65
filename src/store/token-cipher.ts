// Encryption at rest for everything sensitive the stores hold (tokens, sessions, login
// transactions): AES-256-GCM under named keys, so keys can rotate without a flag day. The first
// key of TOKEN_KEYS seals new records; every listed key still opens the records it sealed.
//
// Sealed form: v1.<keyId>.<base64url iv (12 bytes)>.<base64url ciphertext + 16-byte tag>
// The additional authenticated data (AAD) names the record a ciphertext belongs to (a grant id,
// a session id), so a sealed value copied onto another record does not open there.
import { createBoundedMemo } from '../bounded-memo.js'
import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto'

export interface TokenKey {
  id: string
  /** A KeyObject rather than a Buffer: printing or logging it never shows the key bytes. */
  key: KeyObject
}

export interface TokenCipher {
  encrypt: (plaintext: string, aad?: string) => string
  decrypt: (sealed: string, aad?: string) => string
  /** The id new records are sealed with. */
  readonly currentKeyId: string
  /** The key id a sealed value names (undefined when it is not one): records to re-seal after a rotation. */
  keyIdOf: (sealed: string) => string | undefined
}

/** A sealed value that cannot be opened: unknown key id, wrong AAD, damaged or forged. */
export class TokenDecryptError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'TokenDecryptError'
  }
}

const version = 'v1'
const keyIdPattern = /^[A-Za-z0-9_-]{1,32}$/
// Standard or URL-safe alphabet, padded or not (openssl rand -base64 32 pads, others do not).
const base64Pattern = /^[A-Za-z0-9+/_-]+={0,2}$/
const base64UrlPattern = /^[A-Za-z0-9_-]*$/
const keyBytes = 32
const ivBytes = 12
const tagBytes = 16

/**
 * Parses `id:base64key,id:base64key`. Errors name the entry by position and never repeat what
 * might be key material (only a valid id is quoted).
 */
export function parseTokenKeys (spec: string): TokenKey[] {
  const entries = spec.split(',').map((entry) => entry.trim())
  if (entries.every((entry) => entry === '')) throw new Error('no token keys given; expected a comma list of id:base64key')
  const keys: TokenKey[] = []
  entries.forEach((entry, index) => {
    const where = `token key ${index + 1}`
    if (entry === '') throw new Error(`${where} is empty (stray comma?)`)
    const colon = entry.indexOf(':')
    if (colon === -1) throw new Error(`${where} has no ":" between its id and its base64 key`)
    const id = entry.slice(0, colon)
    const encoded = entry.slice(colon + 1)
    if (!keyIdPattern.test(id)) throw new Error(`${where}: the id must be 1 to 32 characters of A-Z, a-z, 0-9, _ and -`)
    if (keys.some((key) => key.id === id)) throw new Error(`${where}: the id "${id}" is used twice`)
    if (!base64Pattern.test(encoded)) throw new Error(`${where} (id "${id}"): the key is not valid base64`)
    const bytes = Buffer.from(encoded, 'base64')
    if (bytes.length !== keyBytes) {
      throw new Error(`${where} (id "${id}"): the key must decode to exactly ${keyBytes} bytes, got ${bytes.length}`)
    }
    keys.push({ id, key: createSecretKey(bytes) })
    bytes.fill(0)
  })
  return keys
}

/** A fresh `id:base64key` for TOKEN_KEYS (documentation, development, rotation). */
export function generateTokenKey (id = `k${new Date().toISOString().slice(0, 10).replaceAll('-', '')}`): string {
  if (!keyIdPattern.test(id)) throw new Error('the id must be 1 to 32 characters of A-Z, a-z, 0-9, _ and -')
  return `${id}:${randomBytes(keyBytes).toString('base64')}`
}

/** How many opened records a cipher remembers (a few MB at most). */
const OPENED_MEMO_ENTRIES = 4096

export function createTokenCipher (keys: TokenKey[]): TokenCipher {
  const [current] = keys
  if (current === undefined) throw new Error('createTokenCipher needs at least one key')
  const byId = new Map<string, KeyObject>()
  for (const { id, key } of keys) {
    if (!keyIdPattern.test(id)) throw new Error('token key ids must be 1 to 32 characters of A-Z, a-z, 0-9, _ and -')
    if (byId.has(id)) throw new Error(`token key id "${id}" is used twice`)
    if (key.type !== 'secret' || key.symmetricKeySize !== keyBytes) throw new Error(`token key "${id}" must be a ${keyBytes}-byte secret key`)
    byId.set(id, key)
  }

  function openSealed (sealed: string, aad: string): string {
    const parts = sealed.split('.')
    if (parts.length !== 4 || parts[0] !== version) throw new TokenDecryptError(`not a ${version} sealed value`)
    const [, keyId = '', ivText = '', bodyText = ''] = parts
    if (!keyIdPattern.test(keyId)) throw new TokenDecryptError('malformed key id')
    const key = byId.get(keyId)
    if (key === undefined) throw new TokenDecryptError(`sealed with unknown key id "${keyId}" (was it removed from TOKEN_KEYS?)`)
    const iv = strictBase64Url(ivText)
    const body = strictBase64Url(bodyText)
    if (iv?.length !== ivBytes || body === undefined || body.length < tagBytes) throw new TokenDecryptError('malformed sealed value')
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv)
      decipher.setAAD(associatedData(keyId, aad))
      decipher.setAuthTag(body.subarray(body.length - tagBytes))
      return Buffer.concat([decipher.update(body.subarray(0, body.length - tagBytes)), decipher.final()]).toString('utf8')
    } catch {
      throw new TokenDecryptError('sealed value failed authentication (tampered, or sealed for another record)')
    }
  }

  // Opening the same sealed value for the same record always gives the same plaintext: remember
  // recent results so a session or grant read on every request is decrypted once, not each time.
  const opened = createBoundedMemo<string>(OPENED_MEMO_ENTRIES)

  return {
    currentKeyId: current.id,

    encrypt (plaintext, aad = '') {
      const iv = randomBytes(ivBytes)
      const cipher = createCipheriv('aes-256-gcm', current.key, iv)
      cipher.setAAD(associatedData(current.id, aad))
      const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()])
      return `${version}.${current.id}.${iv.toString('base64url')}.${sealed.toString('base64url')}`
    },

    decrypt (sealed, aad = '') {
      const memoKey = `${aad}\u0000${sealed}`
      const remembered = opened.get(memoKey)
      if (remembered !== undefined) return remembered
      const plaintext = openSealed(sealed, aad)
      opened.set(memoKey, plaintext)
      return plaintext
    },

    keyIdOf (sealed) {
      const [prefix, keyId] = sealed.split('.', 2)
      return prefix === version && keyId !== undefined && keyIdPattern.test(keyId) ? keyId : undefined
    }
  }
}

// The header is authenticated too, so nothing in the sealed string can be changed unnoticed.
function associatedData (keyId: string, aad: string): Buffer {
  return Buffer.from(`${version}.${keyId}\n${aad}`, 'utf8')
}

// Buffer.from(..., 'base64url') skips invalid characters and ignores the spare bits of the last
// one; only the canonical encoding of the bytes is accepted, so every altered character is noticed.
function strictBase64Url (text: string): Buffer | undefined {
  if (!base64UrlPattern.test(text)) return undefined
  const bytes = Buffer.from(text, 'base64url')
  return bytes.toString('base64url') === text ? bytes : undefined
}
