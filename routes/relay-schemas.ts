// Route schemas for the relay, derived from the allowlist's rows (src/relay/operations.ts): Fastify
// validates with them first, and /docs shows every relayed operation from them, with its name for
// generated clients and the shape of its answer.
import { Type, type TSchema } from '@fastify/type-provider-typebox'
import { ID_PATTERN, pathParameters, type FieldRule, type RelayOperation } from '../src/relay/operations.js'
import { empty, header, json, refusals } from './responses.js'

const id = (description: string): TSchema => Type.Union([Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), Type.String({ pattern: ID_PATTERN })], { description })

function fieldSchema (rule: FieldRule): TSchema {
  switch (rule.kind) {
    case 'flag':
      return Type.Union([Type.Boolean(), Type.String({ enum: ['0', '1', 'true', 'false'] })], { description: rule.description })
    case 'text':
      // Control and bidirectional characters are refused by the relay itself (upstream-request.ts),
      // with a message that names them; a schema pattern could only answer with the pattern.
      return Type.String({ minLength: 1, maxLength: rule.maxLength, description: `${rule.description}; no control or bidirectional characters` })
    case 'ids':
      return Type.Array(id('A file id'), { minItems: 1, maxItems: rule.maxItems, description: rule.description })
    case 'expiry':
      return Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^(\\d{1,12}|\\d{4}-\\d{2}-\\d{2})$' })], { description: rule.description })
    case 'url':
      return Type.String({ maxLength: 2048, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://\\S+$', description: rule.description })
  }
}

function objectOf (rules: Readonly<Record<string, FieldRule>>): TSchema {
  const properties: Record<string, TSchema> = {}
  for (const [name, rule] of Object.entries(rules)) {
    const required = (rule.kind === 'text' && rule.required) || rule.kind === 'ids'
    properties[name] = required ? fieldSchema(rule) : Type.Optional(fieldSchema(rule))
  }
  return Type.Object(properties, { additionalProperties: false })
}

const Answer = Type.Object({}, { additionalProperties: true, description: 'The media service\'s answer, if any; links to its API point at media-bff\'s /api/' })

/** The weak ETag a relayed answer carries, bound to the user: what If-None-Match names to revalidate it. */
const ETAG = Type.String({ pattern: '^W/".*"$', description: 'Weak, bound to this user (an HMAC of the tenant, the user and the service\'s validator): sent when the service gave a validator' })
const CACHE_CONTROL = header(Type.String({ description: '`private, no-cache` (`no-store` when the service says so): a browser revalidates every time, a shared cache never stores it' }), true)

function answers (operation: RelayOperation): Record<string, unknown> {
  const reads = operation.method === 'GET'
  const hasFields = pathParameters(operation.path).length + Object.keys(operation.query).length + Object.keys(operation.body).length > 0
  return {
    '2xx': json(operation.answer ?? Answer, 'The media service\'s answer with its own status, passed on: links to its API point at media-bff\'s /api/', { ETag: ETAG, 'Cache-Control': CACHE_CONTROL }),
    ...(reads ? { 304: empty('Not modified: the If-None-Match sent names what the browser holds, for this user', { ETag: header(ETAG, true), 'Cache-Control': CACHE_CONTROL }) } : {}),
    ...refusals({
      csrf: true,
      signedIn: true,
      scopes: true,
      recentSignIn: operation.recentSignIn === true,
      upstream: 'relayed',
      body: !reads,
      // Every operation's query is held to the parameters it names (none: no parameter at all).
      validated: ['the query', ...(Object.keys(operation.body).length > 0 ? ['the body'] : [])],
      limit: 'relayed calls of this person (RATE_LIMIT_API_PER_MINUTE)',
      own: {
        ...(hasFields ? { 400: ['`invalid_request`: a field fails the relay\'s own checks (`field` names it), such as a text holding a control or bidirectional character'] } : {}),
        429: ['`rate_limited`: more than RELAY_MAX_IN_FLIGHT_PER_USER of this person\'s relayed calls are running at once']
      }
    })
  }
}

export function relaySchema (operation: RelayOperation): Record<string, unknown> {
  const params: Record<string, TSchema> = {}
  for (const name of pathParameters(operation.path)) params[name] = Type.String({ pattern: ID_PATTERN, description: 'A numeric id' })
  const schema: Record<string, unknown> = {
    tags: ['api'],
    operationId: operation.operationId,
    summary: operation.summary,
    description: `Relayed to the tenant's ${operation.method} /api/${operation.path} with the user's token. Needs the \`${operation.scope}\` scope.`,
    querystring: objectOf(operation.query),
    response: answers(operation)
  }
  if (Object.keys(params).length > 0) schema.params = Type.Object(params)
  if (Object.keys(operation.body).length > 0) {
    schema.body = objectOf(operation.body)
    // routes/api.ts takes url-encoded bodies too, as the service does.
    schema.consumes = ['application/json', 'application/x-www-form-urlencoded']
  }
  return schema
}

/** The router's path: every id parameter constrained to digits, so nothing else matches. */
export function routePath (path: string): string {
  return path.split('/').map((segment) => segment.startsWith(':') ? `${segment}(${ID_PATTERN})` : segment).join('/')
}
