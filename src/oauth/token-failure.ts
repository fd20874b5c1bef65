// What a failed call to the token endpoint means, as plain data (token-errors.ts classifies
// openid-client's errors into it). Code that decides what happens to a grant depends on this,
// never on the OAuth library.

export type TokenFailure =
  /** The authorization server refused this grant (invalid_grant): it is over. */
  | { kind: 'rejected', error: string }
  /** It refused media-bff's own client: every grant alike, until the operator acts. */
  | { kind: 'client_rejected', error: string, retryAfterSeconds: number }
  /** An outage of some kind: try again later. */
  | { kind: 'transient', reason: string, retryAfterSeconds: number }

/** A token-endpoint call failed, already classified. */
export class TokenEndpointError extends Error {
  constructor (readonly failure: TokenFailure) {
    super(failure.kind === 'transient' ? failure.reason : `the token endpoint answered ${failure.error}`)
    this.name = 'TokenEndpointError'
  }
}
