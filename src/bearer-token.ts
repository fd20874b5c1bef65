// `Authorization: Bearer <token>` checks for operators' endpoints (METRICS_TOKEN, OPERATOR_TOKEN).
// The comparison is of SHA-256 digests with timingSafeEqual: constant time whatever the length
// of what was sent, and the token itself is never compared or kept in clear.
import { createHash, timingSafeEqual } from 'node:crypto'

export function bearerTokenCheck (token: string): (authorization: string | undefined) => boolean {
  const expected = digest(token)
  return (authorization) => {
    const given = /^Bearer +(\S+) *$/i.exec(authorization ?? '')?.[1]
    return given !== undefined && timingSafeEqual(digest(given), expected)
  }
}

function digest (value: string): Buffer {
  return createHash('sha256').update(value).digest()
}
