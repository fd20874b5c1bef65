// The answers a route declares (its `schema.response`), each with what it means for that route,
// its media types and its headers, as the OpenAPI description shows them. A JSON answer is
// Fastify's to serialise by its schema (content: application/json, the one media type it is
// sent as); a page, a script, the metrics and the event stream are described, never serialised.
// The refusals every route shares (plugins/errors.ts, csrf.ts, grants.ts, rate-limit.ts,
// closing.ts) are said once here, and a route lists those that apply to it (`refusals`), with
// its own reasons beside them.
import { Type, type TSchema } from '@fastify/type-provider-typebox'
import { ErrorBody } from '../src/contract/index.js'

/**
 * Marks a header sent with every answer of its status: plugins/docs.ts makes it the header's
 * `required` (a Header Object's field, which @fastify/swagger would otherwise leave in its schema).
 */
export const REQUIRED_HEADER = 'x-required'

type Headers = Readonly<Record<string, TSchema>>

/** A response header; `required`: sent with every answer of its status. */
export function header (schema: TSchema, required = false): TSchema {
  return required ? { ...schema, [REQUIRED_HEADER]: true } : schema
}

/** How long to wait before trying again, in seconds: on most 429 and 503 answers. */
export const RETRY_AFTER = Type.String({ pattern: '^\\d{1,9}$', description: 'Seconds to wait before trying again' })

/** A JSON answer. */
export function json (schema: TSchema, description: string, headers?: Headers): Record<string, unknown> {
  return { description, ...(headers === undefined ? {} : { headers }), content: { 'application/json': { schema } } }
}

/** An answer in media types other than JSON (a page, a script, text), each a string. */
export function text (types: readonly string[], description: string, headers?: Headers): Record<string, unknown> {
  return { description, ...(headers === undefined ? {} : { headers }), content: Object.fromEntries(types.map((type) => [type, { schema: Type.String() }])) }
}

/** An answer without a body (a redirect, Not Modified). */
export function empty (description: string, headers?: Headers): Record<string, unknown> {
  return { type: 'null', description, ...(headers === undefined ? {} : { headers }) }
}

/** A redirect (302) to `where`. */
export function redirect (description: string, where: string, headers: Headers = {}): Record<string, unknown> {
  return empty(description, { Location: header(Type.String({ format: 'uri-reference', description: where }), true), ...headers })
}

/** A contract error ({ error, message, ...details }) for these reasons, each naming its code. */
export function refusal (reasons: readonly string[], headers?: Headers): Record<string, unknown> {
  return json(ErrorBody, sentence(reasons), headers)
}

/** The refusal of what only operators read (/metrics, /docs), to anyone else. */
export const OPERATORS_ONLY = '`not_found`, as for a route that does not exist: METRICS_TOKEN is set, and the request does not carry it (`Authorization: Bearer <METRICS_TOKEN>`)'

/** What a route is held to, and so may be refused for. */
export interface Guards {
  /** A page's call: X-CSRF: 1, and an allowed Origin (src/gate/page-proof.ts). */
  csrf?: boolean
  /** A signed-in session with a live grant (`config.scopes`, plugins/gate.ts). */
  signedIn?: boolean
  /** Scopes beyond that (`config.scopes` not empty). */
  scopes?: boolean
  /** A risky act: a sign-in older than RECENT_SIGN_IN is refused (src/sign-in/recent-sign-in.ts). */
  recentSignIn?: boolean
  /**
   * The route calls the media service with the user's token: `relayed`, its answer passed on
   * (src/relay/); `read`, its answer read by media-bff (src/media/media-client.ts), which may find
   * an address in it media-bff may not use. Either way a refusal keeps its 4xx status.
   */
  upstream?: 'relayed' | 'read'
  /** The rate limit this route counts against, as a person reads it: whose calls, and its variable. */
  limit?: string
  /** What Fastify validates against the route's schema: `the query`, `the body`, `the path`, ... */
  validated?: readonly string[]
  /** A request body is read (POST, PUT, DELETE): one that cannot be, or is too large. */
  body?: boolean
  /** What bounds the body, when not BODY_LIMIT. */
  bodyLimit?: string
  /** The route's own reasons, by status. */
  own?: Readonly<Partial<Record<400 | 401 | 403 | 404 | 413 | 429 | 503, readonly string[]>>>
}

/** The refusals a route with these guards may answer, each status with every reason for it. */
export function refusals (guards: Guards): Record<string, unknown> {
  const own = guards.own ?? {}
  const relayed = guards.upstream === 'relayed'
  // A refusal of the media service's keeps its status, whatever kind of call it refused.
  const refused = guards.upstream !== undefined
  const reasons = {
    400: [
      ...(guards.validated ?? []).map((part) => `\`invalid_request\`: ${part} does not fit its schema (\`field\` and \`location\` name what)`),
      ...(guards.body === true ? ['`invalid_request`: the body is not JSON, or not sent as application/json'] : []),
      ...(own[400] ?? []),
      ...(refused ? ['`invalid_request`: the media service refused the call as invalid (its 400; `upstream` holds what it said)'] : [])
    ],
    401: [
      ...(guards.signedIn === true ? ['`login_required` (with `login_url`): no session, or its grant has ended'] : []),
      ...(guards.upstream === undefined ? [] : ['`reauth_required` (with `login_url`): the media service no longer takes the grant; the session is cleared']),
      ...(own[401] ?? [])
    ],
    403: [
      ...(guards.csrf === true ? ['`csrf_failed`: no `X-CSRF: 1`, or an `Origin` other than PUBLIC_URL\'s or one of ALLOWED_ORIGINS'] : []),
      ...(guards.scopes === true ? ['`insufficient_scope`: the grant lacks a scope the person may still give (`required_scopes`; `reauthorize_url` asks for it)', '`scope_not_granted`: a re-authorization came back without it, so the account lacks the right'] : []),
      ...(guards.recentSignIn === true ? ['`reauth_required` (with `login_url` and `max_age`, `reason` recent_sign_in): a risky act, and the sign-in is older than RECENT_SIGN_IN; `login_url` signs in again and comes back'] : []),
      ...(own[403] ?? []),
      ...(refused ? ['`upstream_refused`: the media service refused the call (its 403)'] : [])
    ],
    404: [
      ...(own[404] ?? []),
      ...(refused ? ['`not_found`: the media service knows no such thing, or not for this user (its 404 or 410)'] : [])
    ],
    413: [
      ...(guards.body === true ? [`\`payload_too_large\`: the body is over ${guards.bodyLimit ?? 'BODY_LIMIT'}`] : []),
      ...(own[413] ?? []),
      ...(refused ? ['`payload_too_large`: the media service found it too large (its 413)'] : [])
    ],
    429: [
      ...(guards.limit === undefined ? [] : [`\`rate_limited\`: too many ${guards.limit} within a minute`]),
      ...(own[429] ?? []),
      ...(refused ? ['`rate_limited`: the media service said so (its 429, its Retry-After kept)'] : [])
    ],
    503: [
      '`unavailable`: media-bff is stopping, or the session store cannot be reached (the session is kept)',
      ...(own[503] ?? []),
      ...(guards.upstream === undefined ? [] : ['`unavailable`: the token endpoint cannot renew the sign-in now, or refuses media-bff\'s own client'])
    ]
  }
  const retry = { 'Retry-After': RETRY_AFTER }
  const declared: Record<string, unknown> = {}
  for (const [status, why] of Object.entries(reasons)) {
    if (why.length > 0) declared[status] = refusal(why, status === '429' || status === '503' ? retry : undefined)
  }
  if (refused) {
    declared['4xx'] = refusal(['`upstream_refused` (or the contract\'s nearest code: `invalid_request` for a 422, `not_found` for a 410): the media service refused the call with another 4xx status, which is kept; `upstream` holds what it said'])
  }
  if (guards.upstream !== undefined) {
    declared[502] = refusal([relayed
      ? '`upstream_error`: the media service failed (5xx, a redirect, an unexpected 401), answered something media-bff cannot read or too large; `upstream` holds what it said'
      : '`upstream_error`: the media service failed (5xx, a redirect, an unexpected 401; `upstream` holds what it said, its status too), answered something media-bff cannot read or too large, or handed out an address media-bff may not use'])
    declared[504] = refusal(['`upstream_timeout`: the media service did not answer within UPSTREAM_TIMEOUT_MS'])
  }
  return declared
}

/** Reasons as one description: the first capitalised, the rest after semicolons. */
function sentence (reasons: readonly string[]): string {
  const text = reasons.join('; ')
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`
}
