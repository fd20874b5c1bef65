// ULIDs name upload registrations, as in the real service: 26 characters of Crockford base32,
// 48 bits of milliseconds then 80 random bits, so they sort by creation time.
import { randomBytes } from 'node:crypto'

const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'

export const ulidPattern = /^[0-9A-HJKMNP-TV-Z]{26}$/

export function ulid (now = Date.now()): string {
  let time = ''
  let rest = now
  for (let i = 0; i < 10; i++) {
    time = alphabet.charAt(rest % 32) + time
    rest = Math.floor(rest / 32)
  }
  // 80 random bits read 5 at a time: 16 characters.
  const bytes = randomBytes(10)
  let bits = 0n
  for (const byte of bytes) bits = (bits << 8n) | BigInt(byte)
  let random = ''
  for (let i = 0; i < 16; i++) {
    random = alphabet.charAt(Number(bits & 31n)) + random
    bits >>= 5n
  }
  return time + random
}
