// The scopes the routes require, from the tables they are built from (the relay's operations,
// the upload routes' scope): with OAUTH_SCOPES, what a sign-in may ask for (`scope=` on
// /auth/login), and nothing else.
import { RELAY_OPERATIONS } from '../src/relay/operations.js'
import { UPLOAD_SCOPE } from '../src/uploads/upload-policy.js'

export const ROUTE_SCOPES: readonly string[] = Object.freeze([...new Set([UPLOAD_SCOPE, ...RELAY_OPERATIONS.map((operation) => operation.scope)])])
