// Secrets for tests: a session secret and a fresh token key in the forms the configuration takes.
// Apart from helpers/bff.ts so that a unit test needing one loads no app.
import { randomBytes } from 'node:crypto'

export const TEST_SESSION_SECRET = 'test-session-secret-0123456789-abcdefghij'
export const testTokenKey = (id = 'k1'): string => `${id}:${randomBytes(32).toString('base64')}`
