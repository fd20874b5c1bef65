// Tokens, codes and private tokens are opaque random strings, as a real authorization server
// issues them: nothing can be read out of them, so clients cannot come to depend on a format.
import { randomBytes, timingSafeEqual } from 'node:crypto'

export function randomToken (): string {
  return randomBytes(32).toString('base64url')
}

/** Compares secrets without leaking, through timing, how much of a guess was right. */
export function sameSecret (given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}
