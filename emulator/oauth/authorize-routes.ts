// GET /api/oauth2/authorize shows the sign-in and consent page; its form posts back to the same
// path with the request's parameters, the chosen user and the decision. Everything here answers
// in HTML, failures included: a person reads it, not a client.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { EmulatorContext } from '../context.js'
import { findUser } from '../context.js'
import { faultHook } from '../faults.js'
import { formOf } from '../http/body-parsers.js'
import { EmulatorError } from '../http/emulator-error.js'
import { sendHtml, sendRedirect } from '../http/replies.js'
import { abandonUnreadBody, searchParamsOf } from '../http/requests.js'
import { intersectScopes } from '../scopes.js'
import { checkAuthorizeRequest, redirectWith, type AuthorizeCheck } from './authorize-request.js'
import { renderConsentPage, renderErrorPage } from './authorize-page.js'

/** Registered in a scope that parses url-encoded forms only (http/body-parsers.ts, acceptForm). */
export function authorizeRoutes (app: FastifyInstance, context: EmulatorContext): void {
  const check = (query: URLSearchParams): AuthorizeCheck => checkAuthorizeRequest(query, context.settings)

  /** Answers a failed check; undefined when the check passed. */
  const answerFailure = (result: AuthorizeCheck, reply: FastifyReply): FastifyReply | undefined => {
    if (result.outcome === 'error_page') return sendHtml(reply, 400, renderErrorPage(result.message))
    if (result.outcome === 'error_redirect') {
      return sendRedirect(reply, redirectWith(result.redirectUri, {
        error: result.error,
        error_description: result.description,
        message: result.description,
        state: result.state
      }))
    }
    return undefined
  }

  // A body the form parser refused (too large, cut off) is reported on a page as well.
  const htmlErrors = (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    if (!(error instanceof EmulatorError) && error.statusCode === undefined) throw error
    abandonUnreadBody(request, reply)
    const status = error instanceof EmulatorError ? error.status : error.statusCode ?? 400
    const message = error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? 'The sign-in form is too large.' : error.message
    return sendHtml(reply, status, renderErrorPage(message))
  }

  const onRequest = faultHook(context.faults, 'authorize')

  app.get('/api/oauth2/authorize', { onRequest }, async (request, reply) => {
    const result = check(searchParamsOf(request))
    if (result.outcome !== 'ok') return answerFailure(result, reply)
    return sendHtml(reply, 200, renderConsentPage(result.params, context.settings.users, context.settings.scopes))
  })

  app.post('/api/oauth2/authorize', { onRequest, errorHandler: htmlErrors }, async (request, reply) => {
    const form = formOf(request)
    if (form === undefined) {
      abandonUnreadBody(request, reply)
      return sendHtml(reply, 415, renderErrorPage('The sign-in form must be posted form-encoded.'))
    }
    const result = check(form)
    if (result.outcome !== 'ok') return answerFailure(result, reply)
    const { params } = result
    const decision = form.get('decision')
    if (decision === 'deny') {
      const description = 'The user denied the request.'
      return sendRedirect(reply, redirectWith(params.redirectUri, { error: 'access_denied', error_description: description, message: description, state: params.state }))
    }
    if (decision !== 'approve') return sendHtml(reply, 400, renderConsentPage(params, context.settings.users, context.settings.scopes, 'Choose Approve or Deny.'))
    const user = findUser(context, form.get('user') ?? '')
    if (user === undefined) return sendHtml(reply, 400, renderConsentPage(params, context.settings.users, context.settings.scopes, 'Choose one of the listed users.'))
    const code = context.codes.create({
      clientId: params.clientId,
      redirectUri: params.redirectUri,
      userName: user.name,
      scopes: intersectScopes(params.scopes, user.scopes),
      codeChallenge: params.codeChallenge,
      codeChallengeMethod: params.codeChallengeMethod
    }, context.settings.authorizationCodeTtl)
    // No `iss` parameter: the real service does not send one (RFC 9207 is optional).
    return sendRedirect(reply, redirectWith(params.redirectUri, { code: code.code, state: params.state }))
  })
}
