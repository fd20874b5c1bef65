// GET /api/oauth2/authorize shows the sign-in and consent page; its form posts back to the same
// path with the request's parameters, the chosen user and the decision.
import type { EmulatorContext } from '../context.js'
import { findUser } from '../context.js'
import { EmulatorError } from '../http/emulator-error.js'
import { mediaTypeOf, readRawBody } from '../http/read-body.js'
import { sendHtml, sendRedirect } from '../http/responses.js'
import { abandonRequestBody, type Route, type RouteContext } from '../http/router.js'
import { intersectScopes } from '../scopes.js'
import { checkAuthorizeRequest, redirectWith, type AuthorizeCheck } from './authorize-request.js'
import { renderConsentPage, renderErrorPage } from './authorize-page.js'

export function authorizeRoutes (context: EmulatorContext): Route[] {
  const check = (query: URLSearchParams): AuthorizeCheck => checkAuthorizeRequest(query, context.settings)

  /** Answers a failed check; true when it did. */
  const answeredFailure = (result: AuthorizeCheck, { res }: RouteContext): boolean => {
    if (result.outcome === 'error_page') {
      sendHtml(res, 400, renderErrorPage(result.message))
      return true
    }
    if (result.outcome === 'error_redirect') {
      sendRedirect(res, redirectWith(result.redirectUri, {
        error: result.error,
        error_description: result.description,
        message: result.description,
        state: result.state
      }))
      return true
    }
    return false
  }

  const showPage = (route: RouteContext): void => {
    const result = check(route.url.searchParams)
    if (answeredFailure(result, route) || result.outcome !== 'ok') return
    sendHtml(route.res, 200, renderConsentPage(result.params, context.settings.users))
  }

  const decide = async (route: RouteContext): Promise<void> => {
    if (mediaTypeOf(route.req) !== 'application/x-www-form-urlencoded') {
      abandonRequestBody(route.req, route.res)
      sendHtml(route.res, 415, renderErrorPage('The sign-in form must be posted form-encoded.'))
      return
    }
    let form: URLSearchParams
    try {
      form = new URLSearchParams((await readRawBody(route.req)).toString('utf8'))
    } catch (error) {
      if (error instanceof EmulatorError) {
        abandonRequestBody(route.req, route.res)
        sendHtml(route.res, error.status, renderErrorPage(error.message))
        return
      }
      throw error
    }
    const result = check(form)
    if (answeredFailure(result, route) || result.outcome !== 'ok') return
    const { params } = result
    const decision = form.get('decision')
    if (decision === 'deny') {
      const description = 'The user denied the request.'
      sendRedirect(route.res, redirectWith(params.redirectUri, { error: 'access_denied', error_description: description, message: description, state: params.state }))
      return
    }
    if (decision !== 'approve') {
      sendHtml(route.res, 400, renderConsentPage(params, context.settings.users, 'Choose Approve or Deny.'))
      return
    }
    const user = findUser(context, form.get('user') ?? '')
    if (user === undefined) {
      sendHtml(route.res, 400, renderConsentPage(params, context.settings.users, 'Choose one of the listed users.'))
      return
    }
    const code = context.codes.create({
      clientId: params.clientId,
      redirectUri: params.redirectUri,
      userName: user.name,
      scopes: intersectScopes(params.scopes, user.scopes),
      codeChallenge: params.codeChallenge,
      codeChallengeMethod: params.codeChallengeMethod
    }, context.settings.authorizationCodeTtl)
    // No `iss` parameter: the real service does not send one (RFC 9207 is optional).
    sendRedirect(route.res, redirectWith(params.redirectUri, { code: code.code, state: params.state }))
  }

  return [
    { method: 'GET', path: '/api/oauth2/authorize', faultEndpoint: 'authorize', handler: showPage },
    { method: 'POST', path: '/api/oauth2/authorize', faultEndpoint: 'authorize', handler: decide }
  ]
}
