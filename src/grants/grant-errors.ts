// Why a grant could not give an access token. Plugins map these to the contract's errors.

/** The session points at no usable grant (signed out, expired, or deleted): sign in. */
export class GrantMissingError extends Error {
  constructor () {
    super('no grant for this session')
    this.name = 'GrantMissingError'
  }
}

/** The authorization server refused the refresh token (invalid_grant, invalid_client): sign in again. */
export class GrantEndedError extends Error {
  constructor (readonly reason: string) {
    super(`the grant ended: ${reason}`)
    this.name = 'GrantEndedError'
  }
}

/** The token endpoint or the lock could not be used now; the grant is kept, try again later. */
export class RefreshUnavailableError extends Error {
  constructor (readonly reason: string, readonly retryAfterSeconds: number) {
    super(`refresh unavailable: ${reason}`)
    this.name = 'RefreshUnavailableError'
  }
}
