// Client authentication at the token endpoint: client_secret_post (what the official SDK does)
// or client_secret_basic, whose user and password are form-urlencoded before base64 (RFC 6749
// section 2.3.1). Using both at once is refused, as the RFC asks.
import type { IncomingHttpHeaders } from 'node:http'
import { EmulatorError } from '../http/emulator-error.js'
import { sameSecret } from '../random-token.js'
import { oauthError } from './oauth-error.js'

export interface RegisteredClient {
  clientId: string
  clientSecret: string
}

export function authenticateClient (req: { headers: IncomingHttpHeaders }, fields: Record<string, string>, client: RegisteredClient): void {
  const header = req.headers.authorization
  const basic = header !== undefined && /^basic /i.test(header) ? decodeBasic(header.slice(6).trim()) : undefined
  if (basic !== undefined && fields.client_secret !== undefined) {
    throw oauthError('invalid_request', 'Authenticate the client one way only: HTTP Basic or client_secret in the body, not both.')
  }
  const clientId = basic?.clientId ?? fields.client_id
  const clientSecret = basic?.clientSecret ?? fields.client_secret
  if (basic !== undefined && fields.client_id !== undefined && fields.client_id !== basic.clientId) {
    throw invalidClient('The client_id in the body differs from the one in the Authorization header.', true)
  }
  if (clientId === undefined || clientSecret === undefined) {
    throw invalidClient('Client authentication is missing: send client_id and client_secret, or HTTP Basic.', basic !== undefined)
  }
  if (!sameSecret(clientId, client.clientId) || !sameSecret(clientSecret, client.clientSecret)) {
    throw invalidClient('The client id or secret is wrong.', basic !== undefined)
  }
}

function decodeBasic (encoded: string): { clientId: string, clientSecret: string } {
  const decoded = Buffer.from(encoded, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) throw invalidClient('The Basic credentials carry no colon.', true)
  try {
    return { clientId: formDecode(decoded.slice(0, colon)), clientSecret: formDecode(decoded.slice(colon + 1)) }
  } catch {
    throw invalidClient('The Basic credentials are not form-urlencoded.', true)
  }
}

function formDecode (value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '))
}

function invalidClient (description: string, usedBasic: boolean): EmulatorError {
  const error = oauthError('invalid_client', description)
  // RFC 6749 5.2: 401 with a challenge for the scheme the client tried (Basic by default).
  error.headers['www-authenticate'] = `Basic realm="media-emulator"${usedBasic ? ', error="invalid_client"' : ''}`
  return error
}
