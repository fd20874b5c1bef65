// What goes upstream for one relayed call, rebuilt from validated parts only: the path from the
// operation's template with canonical ids, the query and the body from the operation's own
// fields. Nothing the browser sent is copied through as it came. Bodies go up url-encoded, as
// the service's own SDK sends them.
import { hasUnsafeCharacters, unsafeTextMessage } from '../safe-text.js'
import { ID_PATTERN, pathParameters, type FieldRule, type RelayOperation } from './operations.js'

export interface UpstreamRequest {
  operation: RelayOperation
  /** Relative to the tenant's /api/, query string included. */
  path: string
  /** application/x-www-form-urlencoded, for operations with body fields. */
  form?: string
  /** The browser's If-None-Match, as sent: the relay sends up only what is bound to the user (validators.ts). */
  ifNoneMatch?: string
  /** The id of the browser's request (src/request-id.ts), sent along. */
  requestId?: string
}

export interface BrowserCall {
  params: Readonly<Record<string, unknown>>
  query: Readonly<Record<string, unknown>>
  body: unknown
  headers: Readonly<Record<string, string | string[] | undefined>>
}

const id = new RegExp(ID_PATTERN)
/** HTTP dates and entity tags are short; anything longer is not passed on. */
const MAX_CONDITION_LENGTH = 512

export class RelayInputError extends Error {
  constructor (readonly field: string, message: string) {
    super(message)
    this.name = 'RelayInputError'
  }
}

export function upstreamRequestFor (operation: RelayOperation, call: BrowserCall): UpstreamRequest {
  const names = pathParameters(operation.path)
  let path = operation.path
  for (const name of names) path = path.replace(`:${name}`, canonicalId(call.params[name], name))
  const query = encodeFields(operation.query, call.query, 'query')
  const request: UpstreamRequest = { operation, path: query === '' ? path : `${path}?${query}` }
  if (Object.keys(operation.body).length > 0) request.form = encodeFields(operation.body, bodyFields(call.body), 'body')
  if (operation.method === 'GET') {
    // If-Modified-Since is never passed on: a date cannot say whose copy the browser holds.
    const ifNoneMatch = condition(call.headers['if-none-match'])
    if (ifNoneMatch !== undefined) request.ifNoneMatch = ifNoneMatch
  }
  return request
}

/**
 * A url-encoded form body arrives as flat strings: `files[]=1&files[]=2` is the `files` field, and
 * a single value of a list field is a list of one. JSON bodies pass unchanged.
 */
export function bodyFromForm (operation: RelayOperation, body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body
  // No prototype: a field named __proto__ stays a field (and is refused as unknown).
  const fields: Record<string, unknown> = Object.create(null) as Record<string, unknown>
  for (const [key, value] of Object.entries(body)) {
    const name = key.endsWith('[]') ? key.slice(0, -2) : key
    const rule = ruleFor(operation.body, name)
    fields[name] = rule?.kind === 'ids' && !Array.isArray(value) ? [value] : value
  }
  return fields
}

function canonicalId (value: unknown, name: string): string {
  if (typeof value !== 'string' || !id.test(value)) throw new RelayInputError(name, `${name} must be a number.`)
  return String(Number(value))
}

function bodyFields (body: unknown): Readonly<Record<string, unknown>> {
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? body as Record<string, unknown> : {}
}

function encodeFields (rules: Readonly<Record<string, FieldRule>>, values: Readonly<Record<string, unknown>>, where: string): string {
  const form = new URLSearchParams()
  for (const name of Object.keys(values)) {
    if (ruleFor(rules, name) === undefined) throw new RelayInputError(name, `${where} may not carry ${name}.`)
  }
  for (const [name, rule] of Object.entries(rules)) {
    const value = values[name]
    if (value === undefined) {
      if (rule.kind === 'text' && rule.required) throw new RelayInputError(name, `${name} is required.`)
      if (rule.kind === 'ids') throw new RelayInputError(name, `${name} is required.`)
      continue
    }
    for (const [key, encoded] of encodeField(name, rule, value)) form.append(key, encoded)
  }
  return form.toString()
}

/**
 * The rule for a field the browser named: only the operation's own. The rule tables are object
 * literals, so `rules[name]` would also find what they inherit (constructor, toString,
 * __proto__...) and let such a field through unrefused.
 */
function ruleFor (rules: Readonly<Record<string, FieldRule>>, name: string): FieldRule | undefined {
  return Object.hasOwn(rules, name) ? rules[name] : undefined
}

function encodeField (name: string, rule: FieldRule, value: unknown): Array<[string, string]> {
  switch (rule.kind) {
    case 'flag':
      if (value === true || value === 'true' || value === '1') return [[name, '1']]
      if (value === false || value === 'false' || value === '0') return [[name, '0']]
      throw new RelayInputError(name, `${name} must be true or false.`)
    case 'text':
      if (typeof value !== 'string' || value.length === 0 || value.length > rule.maxLength) throw new RelayInputError(name, `${name} must be text of 1 to ${rule.maxLength} characters.`)
      // Names and titles are shown to people: nothing invisible or reordering (src/safe-text.ts).
      if (hasUnsafeCharacters(value)) throw new RelayInputError(name, unsafeTextMessage(name))
      return [[name, value]]
    case 'ids': {
      const list = Array.isArray(value) ? value : [value]
      if (list.length === 0 || list.length > rule.maxItems) throw new RelayInputError(name, `${name} must list 1 to ${rule.maxItems} ids.`)
      return list.map((item) => [`${name}[]`, canonicalId(typeof item === 'number' && Number.isSafeInteger(item) ? String(item) : item, name)])
    }
    case 'expiry':
      if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return [[name, String(value)]]
      if (typeof value === 'string' && /^(\d{1,12}|\d{4}-\d{2}-\d{2})$/.test(value)) return [[name, value]]
      throw new RelayInputError(name, `${name} must be Unix time in seconds or a date (YYYY-MM-DD).`)
    case 'url':
      if (typeof value !== 'string' || value.length > 2048 || !/^https?:\/\/[^\s]+$/i.test(value)) throw new RelayInputError(name, `${name} must be an http or https URL.`)
      return [[name, value]]
  }
}

function condition (value: string | string[] | undefined): string | undefined {
  if (typeof value !== 'string' || value.length > MAX_CONDITION_LENGTH || /\p{Cc}/u.test(value)) return undefined
  return value
}
