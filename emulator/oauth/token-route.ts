// POST /api/oauth2/token: the authorization_code and refresh_token grants (RFC 6749 4.1.3, 6),
// with PKCE, single-use codes, refresh-token rotation and reuse detection.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { EmulatorContext } from '../context.js'
import { findUser } from '../context.js'
import { faultHook } from '../faults.js'
import { formOf } from '../http/body-parsers.js'
import { sendJson } from '../http/replies.js'
import { formatScopes, parseScopeList } from '../scopes.js'
import { authenticateClient } from './client-authentication.js'
import { oauthError } from './oauth-error.js'
import { verifyPkce } from './pkce.js'
import type { TokenRecord } from './token-store.js'

interface TokenResponse {
  access_token: string
  token_type: 'Bearer'
  expires_in: number
  refresh_token: string
  scope: string
  user_id: number
}

const tokenResponseSchema = {
  type: 'object',
  required: ['access_token', 'token_type', 'expires_in', 'refresh_token', 'scope', 'user_id'],
  properties: {
    access_token: { type: 'string' },
    token_type: { type: 'string' },
    expires_in: { type: 'integer' },
    refresh_token: { type: 'string' },
    scope: { type: 'string' },
    user_id: { type: 'integer' }
  }
} as const

/** Registered in a scope that parses url-encoded forms only (http/body-parsers.ts, acceptForm). */
export function tokenRoute (app: FastifyInstance, context: EmulatorContext): void {
  const readForm = (request: FastifyRequest): Record<string, string> => {
    const params = formOf(request)
    if (params === undefined) throw oauthError('invalid_request', 'The token request must be sent as application/x-www-form-urlencoded.')
    const fields: Record<string, string> = {}
    for (const name of new Set(params.keys())) {
      // RFC 6749 3.2: parameters must not be repeated.
      if (params.getAll(name).length > 1) throw oauthError('invalid_request', `The parameter ${name} is given more than once.`)
      fields[name] = params.get(name) as string
    }
    return fields
  }

  const respond = (reply: FastifyReply, access: TokenRecord, refresh: TokenRecord): FastifyReply => {
    const user = findUser(context, access.userName)
    const body: TokenResponse = {
      access_token: access.token,
      token_type: 'Bearer',
      expires_in: Math.round((access.expiresAt - access.issuedAt) / 1000),
      refresh_token: refresh.token,
      scope: formatScopes(access.scopes),
      user_id: user?.userId ?? 0
    }
    return sendJson(reply, 200, body, { pragma: 'no-cache' })
  }

  const issuePair = (family: { familyId: string, userName: string, clientId: string }, scopes: string[]): [TokenRecord, TokenRecord] => [
    context.tokens.issue('access', family, scopes, context.settings.accessTokenTtl),
    context.tokens.issue('refresh', family, scopes, context.settings.refreshTokenTtl)
  ]

  const authorizationCodeGrant = (reply: FastifyReply, fields: Record<string, string>, clientId: string): FastifyReply => {
    if (fields.code === undefined || fields.code === '') throw oauthError('invalid_request', 'code is missing.')
    const code = context.codes.find(fields.code)
    if (code === undefined || code.clientId !== clientId) throw oauthError('invalid_grant', 'The authorization code is unknown.')
    if (code.familyId !== undefined) {
      // A replayed code may be in an attacker's hands: end everything it produced.
      context.tokens.revokeFamily(code.familyId)
      throw oauthError('invalid_grant', 'The authorization code was already used; the tokens issued from it are revoked.')
    }
    if (code.expiresAt <= Date.now()) throw oauthError('invalid_grant', 'The authorization code has expired.')
    if (fields.redirect_uri !== code.redirectUri) throw oauthError('invalid_grant', 'redirect_uri does not match the one of the authorization request.')
    if (code.codeChallenge !== undefined && code.codeChallengeMethod !== undefined &&
      !verifyPkce(code.codeChallengeMethod, code.codeChallenge, fields.code_verifier)) {
      throw oauthError('invalid_grant', fields.code_verifier === undefined ? 'code_verifier is missing.' : 'code_verifier does not match the code challenge.')
    }
    const family = { familyId: context.tokens.startFamily(), userName: code.userName, clientId: code.clientId }
    code.familyId = family.familyId
    const [access, refresh] = issuePair(family, code.scopes)
    context.counters.tokenGrants.authorization_code += 1
    return respond(reply, access, refresh)
  }

  const refreshTokenGrant = (reply: FastifyReply, fields: Record<string, string>, clientId: string): FastifyReply => {
    if (fields.refresh_token === undefined || fields.refresh_token === '') throw oauthError('invalid_request', 'refresh_token is missing.')
    const presented = context.tokens.findLive(fields.refresh_token, 'refresh')
    if (presented === undefined || presented.clientId !== clientId) {
      throw oauthError('invalid_grant', 'The refresh token is unknown, expired or revoked.')
    }
    if (presented.retired) {
      // Reuse of a rotated-out token: someone holds a stolen copy. End the whole family.
      context.tokens.revokeFamily(presented.familyId)
      context.counters.refreshReuseDetections += 1
      throw oauthError('invalid_grant', 'The refresh token was already used; every token of this grant is revoked.')
    }
    let scopes = presented.scopes
    if (fields.scope !== undefined && fields.scope.trim() !== '') {
      const requested = parseScopeList(context.settings.scopes, fields.scope)
      const beyond = requested.filter((scope) => !context.settings.scopes.has(scope) || !presented.scopes.includes(scope))
      if (beyond.length > 0) throw oauthError('invalid_scope', `A refresh can only narrow the grant; not granted: ${beyond.join(', ')}.`)
      scopes = requested
    }
    const access = context.tokens.issue('access', presented, scopes, context.settings.accessTokenTtl)
    let refresh = presented
    if (context.settings.rotateRefreshTokens) {
      presented.retired = true
      // The new refresh token keeps the grant's full scope (RFC 6749 6): narrowing is per access token.
      refresh = context.tokens.issue('refresh', presented, presented.scopes, context.settings.refreshTokenTtl)
    }
    context.counters.tokenGrants.refresh_token += 1
    return respond(reply, access, refresh)
  }

  app.post('/api/oauth2/token', { onRequest: faultHook(context.faults, 'token'), schema: { response: { 200: tokenResponseSchema } } }, async (request, reply) => {
    const fields = readForm(request)
    authenticateClient(request, fields, context.settings)
    const clientId = context.settings.clientId
    const grantType = fields.grant_type
    if (grantType === undefined || grantType === '') throw oauthError('invalid_request', 'grant_type is missing.')
    if (grantType === 'authorization_code') return authorizationCodeGrant(reply, fields, clientId)
    if (grantType === 'refresh_token') return refreshTokenGrant(reply, fields, clientId)
    throw oauthError('unsupported_grant_type', `grant_type ${grantType} is not supported; use authorization_code or refresh_token.`)
  })
}
