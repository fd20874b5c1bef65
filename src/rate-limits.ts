// The rate limits a route may name (`config: { limit }`, plugins/gate.ts) and whom each
// counts: a client address, or a signed-in person. A person's count is taken with their session,
// in the same exchange with the store (src/sessions/session-core.ts).

export type LimitName = 'login' | 'webhooks' | 'register' | 'finish' | 'api' | 'sessions' | 'events'

/** The limits counted per signed-in person (SignedIn.budgetKey); the rest per client address. */
export const PERSON_LIMITS: ReadonlySet<string> = new Set<LimitName>(['register', 'finish', 'api', 'sessions', 'events'])

/** Every limit is a fixed window of this length. */
export const LIMIT_WINDOW_MS = 60_000
