// The one shape every small request body is read into, whatever its encoding: a plain object
// of fields. Repeated keys become arrays (`a=1&a=2`, `a[]=1`), as PHP-style services accept
// them; upload/upload-options.ts decides which fields may be repeated.
import { EmulatorError, badRequest } from './emulator-error.js'

export const maxBodyBytes = 1024 * 1024

export type BodyFields = Record<string, unknown>

export function tooLarge (): EmulatorError {
  return new EmulatorError(413, 'payload_too_large', `The request body is larger than ${maxBodyBytes} bytes.`)
}

export function parseUrlEncoded (text: string): BodyFields {
  const fields: BodyFields = {}
  for (const [key, value] of new URLSearchParams(text)) addField(fields, key, value)
  return fields
}

export function addField (fields: BodyFields, key: string, value: string): void {
  const name = key.endsWith('[]') ? key.slice(0, -2) : key
  const existing = fields[name]
  if (existing === undefined) fields[name] = key.endsWith('[]') ? [value] : value
  else if (Array.isArray(existing)) existing.push(value)
  else fields[name] = [existing, value]
}

/** A parsed JSON body must be an object; an empty body means no fields. */
export function jsonFields (value: unknown): BodyFields {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badRequest('The JSON body must be an object.')
  return value as BodyFields
}
