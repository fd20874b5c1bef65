// Readers of single values out of parsed body fields (body-fields.ts) or a query string, shared
// by the upload options and the library routes. Real clients send ids and numbers as numeric
// strings and booleans as 1/0/"true", whatever the body's encoding, so all of these are taken.
import type { BodyFields } from './body-fields.js'
import { badRequest } from './emulator-error.js'

/** The service's ids: a safe integer of at most 15 digits. */
export const numericId = /^\d{1,15}$/

/** A field that must not be repeated. */
export function single (fields: BodyFields, name: string): unknown {
  const value = fields[name]
  if (Array.isArray(value)) throw badRequest(`${name} is given more than once.`)
  if (value !== undefined && value !== null && typeof value === 'object') throw badRequest(`${name} must be a single value.`)
  return value
}

/** true/false, 1/0, "true"/"false", "1"/"0"; absent or empty gives the fallback. */
export function flag (fields: BodyFields, name: string, fallback: boolean): boolean {
  const value = single(fields, name)
  if (value === undefined || value === '') return fallback
  if (value === true || value === 1 || value === 'true' || value === '1') return true
  if (value === false || value === 0 || value === 'false' || value === '0') return false
  throw badRequest(`${name} must be true or false (or 1 or 0).`)
}

/** An id given as a number or a numeric string. */
export function idValue (value: unknown, name: string): number {
  const text = typeof value === 'number' ? String(value) : value
  if (typeof text !== 'string' || !numericId.test(text.trim())) throw badRequest(`${name} must be an integer of 0 or more.`)
  return Number(text.trim())
}
