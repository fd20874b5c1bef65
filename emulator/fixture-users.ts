// The accounts the emulator knows. Alice may do everything; Bob may only read, so tests can see
// a user who cannot get the upload scope however often he is sent through authorize.
import { randomToken } from './random-token.js'
import type { ScopeCatalog } from './scopes.js'

export interface FixtureUser {
  /** Numeric account id, as the service's ids are numeric. */
  userId: number
  /** Log-in name; also the value of the authorize form's `user` field. */
  name: string
  fullName: string
  email: string
  /** Entitlements: the scopes this user may grant. */
  scopes: string[]
  /** Full-access personal token (`Authorization: Private-Token ...`). */
  privateToken: string
}

/** What options may say about a user; everything but name and scopes has a default. */
export interface FixtureUserInput {
  name: string
  scopes: string[]
  userId?: number
  fullName?: string
  email?: string
  privateToken?: string
}

export const defaultUserInputs: FixtureUserInput[] = [
  { name: 'alice', fullName: 'Alice Example', email: 'alice@example.test', scopes: ['basic', 'user.info', 'manage', 'upload', 'share'] },
  { name: 'bob', fullName: 'Bob Example', email: 'bob@example.test', scopes: ['basic', 'user.info'] }
]

const userNamePattern = /^[a-z0-9][a-z0-9._-]{0,31}$/

export function buildFixtureUsers (inputs: FixtureUserInput[], catalog: ScopeCatalog): FixtureUser[] {
  if (inputs.length === 0) throw new TypeError('emulator users: at least one user is needed')
  const seenNames = new Set<string>()
  const seenTokens = new Set<string>()
  return inputs.map((input, index) => {
    if (!userNamePattern.test(input.name)) throw new TypeError(`emulator users: bad user name ${JSON.stringify(input.name)} (lower-case letters, digits, . _ -)`)
    if (seenNames.has(input.name)) throw new TypeError(`emulator users: duplicate user name ${input.name}`)
    seenNames.add(input.name)
    const unknown = input.scopes.filter((scope) => !catalog.has(scope))
    if (unknown.length > 0) throw new TypeError(`emulator users: unknown scope(s) ${unknown.join(', ')} for ${input.name}`)
    const privateToken = input.privateToken ?? randomToken()
    if (privateToken.length < 8 || /\s/.test(privateToken)) throw new TypeError(`emulator users: the private token of ${input.name} must be at least 8 characters without spaces`)
    if (seenTokens.has(privateToken)) throw new TypeError('emulator users: two users share a private token')
    seenTokens.add(privateToken)
    const capitalised = input.name.charAt(0).toUpperCase() + input.name.slice(1)
    return {
      userId: input.userId ?? index + 1,
      name: input.name,
      fullName: input.fullName ?? `${capitalised} Example`,
      email: input.email ?? `${input.name}@example.test`,
      scopes: [...input.scopes],
      privateToken
    }
  })
}
