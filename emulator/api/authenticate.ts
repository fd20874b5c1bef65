// Authentication of /api calls: `Authorization: Bearer <access token>`, or the user's private
// token as `Authorization: Private-Token <token>` or a `private_token` form field. A private
// token carries every right of its user; an access token carries the scopes it was granted.
import type { IncomingHttpHeaders } from 'node:http'
import type { EmulatorContext } from '../context.js'
import { findUser } from '../context.js'
import type { FixtureUser } from '../fixture-users.js'
import { EmulatorError } from '../http/emulator-error.js'
import { sameSecret } from '../random-token.js'

export interface Caller {
  user: FixtureUser
  scopes: string[]
  via: 'bearer' | 'private_token'
}

const challenge = 'Bearer realm="media-emulator"'

function invalidToken (description: string): EmulatorError {
  return new EmulatorError(401, 'invalid_token', description, {
    userMessage: 'Please sign in again.',
    headers: { 'www-authenticate': `${challenge}, error="invalid_token", error_description="${description.replace(/"/g, "'")}"` }
  })
}

/** The presented credential, without checking it; undefined when none was sent. */
export function presentedCredential (req: { headers: IncomingHttpHeaders }, formToken: unknown): { scheme: 'bearer' | 'private_token', token: string } | undefined {
  const header = req.headers.authorization
  if (header !== undefined && header.trim() !== '') {
    const match = /^(bearer|private-token)\s+(\S+)\s*$/i.exec(header.trim())
    if (match === null) throw invalidToken('The Authorization header must be "Bearer <token>" or "Private-Token <token>".')
    return { scheme: (match[1] as string).toLowerCase() === 'bearer' ? 'bearer' : 'private_token', token: match[2] as string }
  }
  if (typeof formToken === 'string' && formToken !== '') return { scheme: 'private_token', token: formToken }
  if (formToken !== undefined) throw invalidToken('private_token must be a single non-empty string.')
  return undefined
}

export function authenticate (context: EmulatorContext, req: { headers: IncomingHttpHeaders }, formToken?: unknown): Caller {
  const credential = presentedCredential(req, formToken)
  if (credential === undefined) {
    throw new EmulatorError(401, 'invalid_token', 'No access token was sent.', { userMessage: 'Please sign in.', headers: { 'www-authenticate': challenge } })
  }
  if (credential.scheme === 'private_token') {
    const user = context.settings.users.find((candidate) => sameSecret(credential.token, candidate.privateToken))
    if (user === undefined) throw invalidToken('The private token is unknown or was revoked.')
    return { user, scopes: [...user.scopes], via: 'private_token' }
  }
  const record = context.tokens.findLive(credential.token, 'access')
  const user = record === undefined ? undefined : findUser(context, record.userName)
  if (record === undefined || user === undefined) throw invalidToken('The access token is unknown, expired or revoked.')
  return { user, scopes: record.scopes, via: 'bearer' }
}

/** Requires one of the scopes (any of them will do). */
export function requireScope (caller: Caller, ...anyOf: string[]): void {
  if (anyOf.some((scope) => caller.scopes.includes(scope))) return
  const needed = anyOf.join(' ')
  throw new EmulatorError(403, 'insufficient_scope', `This call needs the scope ${anyOf.join(' or ')}.`, {
    userMessage: 'You have not given this application permission to do that.',
    headers: { 'www-authenticate': `${challenge}, error="insufficient_scope", scope="${needed}"` }
  })
}
