// Schemas shared by several routes. Response schemas double as a whitelist: fields not listed
// are never serialised, so nothing leaks by accident.

// The error body and a stored file, as every route answers with them: the contract's (src/contract/).
export { ErrorBody, StoredFile } from '../src/contract/index.js'

/**
 * The security of a route that answers with or without a session (the OpenAPI description's
 * `security`; its schemes are plugins/docs-security.ts's). Routes that need one say so with
 * `config: { scopes }`, and the description follows from that.
 */
export const SESSION_IF_ANY: ReadonlyArray<Record<string, readonly string[]>> = [{ sessionCookie: [] }, {}]
