// RFC 6749 section 5.2 errors of the token endpoint, with the service's extra user_message.
import { EmulatorError } from '../http/emulator-error.js'

export type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unauthorized_client' | 'unsupported_grant_type' | 'invalid_scope'

const userMessages: Record<OAuthErrorCode, string> = {
  invalid_request: 'The sign-in request was malformed. Please try again.',
  invalid_client: 'This application is not registered correctly with the media service.',
  invalid_grant: 'Your sign-in has expired or was revoked. Please sign in again.',
  unauthorized_client: 'This application may not sign in this way.',
  unsupported_grant_type: 'This application may not sign in this way.',
  invalid_scope: 'The requested permissions are not available.'
}

export function oauthError (code: OAuthErrorCode, description: string): EmulatorError {
  const status = code === 'invalid_client' ? 401 : 400
  return new EmulatorError(status, code, description, {
    userMessage: userMessages[code],
    headers: { 'cache-control': 'no-store', pragma: 'no-cache' }
  })
}
