// What device binding says on the wire (the WICG DBSC protocol as Chrome ships it): the
// structured-field strings of its headers (RFC 9651) and the session instructions a registration
// and a refresh answer with.
import { BINDING_ALGORITHMS } from './proofs.js'

export const REGISTRATION_HEADER = 'secure-session-registration'
export const CHALLENGE_HEADER = 'secure-session-challenge'
export const RESPONSE_HEADER = 'secure-session-response'
export const SESSION_ID_HEADER = 'sec-secure-session-id'

/** An sf-string: printable ASCII, `"` and `\` escaped. Our values are base64url and paths. */
export function sfString (value: string): string {
  if (!/^[\x20-\x7e]*$/.test(value)) throw new Error('an sf-string holds printable ASCII only')
  return `"${value.replace(/[\\"]/g, (character) => `\\${character}`)}"`
}

/**
 * The string a request header carries: an sf-string (its parameters ignored), or, as some
 * browsers' builds sent it, the bare value. Undefined when it is neither.
 */
export function readSfString (header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  const text = header.trim()
  if (!text.startsWith('"')) {
    const bare = text.split(';')[0]?.trim() ?? ''
    return /^[\x21-\x7e]+$/.test(bare) && !bare.includes('"') ? bare : undefined
  }
  let value = ''
  for (let at = 1; at < text.length; at++) {
    const character = text[at] ?? ''
    if (character === '"') return value
    if (character === '\\') {
      const next = text[++at]
      if (next !== '"' && next !== '\\') return undefined
      value += next
    } else if (/^[\x20-\x7e]$/.test(character)) {
      value += character
    } else {
      return undefined
    }
  }
  return undefined
}

/** `Secure-Session-Registration`: the algorithms taken, where to register, the challenge. */
export function registrationHeader (path: string, challenge: string): string {
  return `(${BINDING_ALGORITHMS.join(' ')});path=${sfString(path)};challenge=${sfString(challenge)}`
}

/** `Secure-Session-Challenge`: the challenge the next proof of this binding signs. */
export function challengeHeader (challenge: string, bindingId: string): string {
  return `${sfString(challenge)};id=${sfString(bindingId)}`
}

export interface InstructionsOf {
  bindingId: string
  refreshUrl: string
  origin: string
  host: string
  /** Paths of the origin the short-lived cookie is not needed for: sign-in and the proxy's check. */
  excluded: readonly string[]
  /** Hosts of other origins whose pages call media-bff (ALLOWED_ORIGINS): their calls renew too. */
  initiators: readonly string[]
  cookieName: string
  cookieAttributes: string
}

/** The session instructions (JSON) a registration or a refresh answers with. */
export function sessionInstructions (of: InstructionsOf): Record<string, unknown> {
  // The whole origin, the site's own pages under a BASE_PATH included (the proxy's check asks the
  // cookie of them), but for what must never wait for a renewal.
  const rules = of.excluded.map((path) => ({ type: 'exclude', domain: of.host, path }))
  return {
    session_identifier: of.bindingId,
    refresh_url: of.refreshUrl,
    scope: { origin: of.origin, include_site: false, scope_specification: rules },
    credentials: [{ type: 'cookie', name: of.cookieName, attributes: of.cookieAttributes }],
    ...(of.initiators.length === 0 ? {} : { allowed_refresh_initiators: [...of.initiators] })
  }
}

/** What a refresh answers for a binding that is over: the browser drops its session and key. */
export const END_BINDING = { continue: false } as const
