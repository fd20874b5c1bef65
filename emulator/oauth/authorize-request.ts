// Validation of an authorization request (RFC 6749 4.1.1, RFC 7636). A bad client or redirect
// URI must never cause a redirect (it could send the user anywhere), so those end on an error
// page; every other problem is reported to the client by redirect, as the RFC asks.
import { parseScopeList, type ScopeCatalog } from '../scopes.js'
import { pkceValuePattern } from './pkce.js'

export interface AuthorizeParams {
  clientId: string
  redirectUri: string
  scopes: string[]
  state: string | undefined
  codeChallenge: string | undefined
  codeChallengeMethod: 'S256' | 'plain' | undefined
}

export type AuthorizeCheck =
  | { outcome: 'ok', params: AuthorizeParams }
  | { outcome: 'error_page', message: string }
  | { outcome: 'error_redirect', redirectUri: string, state: string | undefined, error: string, description: string }

const singleValued = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method']

export function checkAuthorizeRequest (query: URLSearchParams, registered: { clientId: string, redirectUri: string, scopes: ScopeCatalog }): AuthorizeCheck {
  const catalog = registered.scopes
  const one = (name: string): string | undefined => query.get(name) ?? undefined
  const repeated = singleValued.filter((name) => query.getAll(name).length > 1)

  const clientId = one('client_id')
  if (clientId === undefined || clientId === '') return { outcome: 'error_page', message: 'The request carries no client_id.' }
  if (repeated.includes('client_id')) return { outcome: 'error_page', message: 'client_id is given more than once.' }
  if (clientId !== registered.clientId) return { outcome: 'error_page', message: `The client ${clientId} is not registered.` }
  const redirectUri = one('redirect_uri')
  if (redirectUri === undefined || redirectUri === '') return { outcome: 'error_page', message: 'The request carries no redirect_uri.' }
  if (repeated.includes('redirect_uri')) return { outcome: 'error_page', message: 'redirect_uri is given more than once.' }
  if (redirectUri !== registered.redirectUri) return { outcome: 'error_page', message: `The redirect URI ${redirectUri} is not the one registered for this client.` }

  const state = repeated.includes('state') ? undefined : one('state')
  const fail = (error: string, description: string): AuthorizeCheck => ({ outcome: 'error_redirect', redirectUri, state, error, description })

  if (repeated.length > 0) return fail('invalid_request', `Parameter(s) given more than once: ${repeated.join(', ')}.`)
  if (state !== undefined && state.length > 2048) return fail('invalid_request', 'state is longer than 2048 characters.')
  const responseType = one('response_type')
  if (responseType === undefined || responseType === '') return fail('invalid_request', 'response_type is missing.')
  if (responseType !== 'code') return fail('unsupported_response_type', `response_type ${responseType} is not supported; use code.`)

  const scopeParam = one('scope') ?? ''
  // An absent scope gets the service's least privilege rather than an error.
  const scopes = scopeParam.trim() === '' ? ['basic'] : parseScopeList(catalog, scopeParam)
  const unknown = scopes.filter((scope) => !catalog.has(scope))
  if (unknown.length > 0) return fail('invalid_scope', `Unknown scope(s): ${unknown.join(', ')}.`)

  const codeChallenge = one('code_challenge')
  const method = one('code_challenge_method')
  if (codeChallenge === undefined && method !== undefined) return fail('invalid_request', 'code_challenge_method was sent without code_challenge.')
  let codeChallengeMethod: 'S256' | 'plain' | undefined
  if (codeChallenge !== undefined) {
    // RFC 7636 4.3: the method defaults to plain.
    if (method !== undefined && method !== 'S256' && method !== 'plain') return fail('invalid_request', `code_challenge_method ${method} is not supported; use S256 or plain.`)
    codeChallengeMethod = method === 'S256' ? 'S256' : 'plain'
    const shape = codeChallengeMethod === 'S256' ? /^[A-Za-z0-9_-]{43}$/ : pkceValuePattern
    if (!shape.test(codeChallenge)) return fail('invalid_request', `code_challenge is not a valid ${codeChallengeMethod} challenge.`)
  }
  return { outcome: 'ok', params: { clientId, redirectUri, scopes, state, codeChallenge, codeChallengeMethod } }
}

/** The redirect URI with extra query parameters, keeping any it already had. */
export function redirectWith (redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri)
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.set(name, value)
  }
  return url.toString()
}
