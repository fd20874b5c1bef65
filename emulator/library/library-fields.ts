// The fields and query parameters of the library calls, read and checked; every refusal is a
// 400 naming the field, as the rest of the emulator answers bad input.
import type { BodyFields } from '../http/body-fields.js'
import { badRequest } from '../http/emulator-error.js'
import { idValue, single } from '../http/field-readers.js'

const maxNameLength = 255
const maxShareFiles = 100

/** C0 and C1 control characters: invisible in listings, and they break paths and headers. */
function hasControlCharacter (text: string): boolean {
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true
  }
  return false
}

function requiredText (fields: BodyFields, name: string): string {
  const value = single(fields, name)
  if (typeof value !== 'string') throw badRequest(`${name} is required (text of 1 to ${maxNameLength} characters).`)
  const text = value.trim()
  if (text.length === 0 || text.length > maxNameLength) throw badRequest(`${name} must be 1 to ${maxNameLength} characters long (spaces around it do not count).`)
  return text
}

/** A folder's name: trimmed, 1 to 255 characters, no slash (it would read as a path) or control character. */
export function folderName (fields: BodyFields): string {
  const name = requiredText(fields, 'name')
  if (name.includes('/')) throw badRequest('name may not contain "/".')
  if (hasControlCharacter(name)) throw badRequest('name may not contain control characters.')
  return name
}

/** A file's title: trimmed, 1 to 255 characters. */
export function fileTitle (fields: BodyFields): string {
  return requiredText(fields, 'title')
}

/** A listing switch of the query string: 0, 1, true or false; absent means true. */
export function listingFlag (query: URLSearchParams, name: string): boolean {
  const values = query.getAll(name)
  if (values.length === 0) return true
  const value = values.length === 1 ? values[0] : undefined
  if (value === '1' || value === 'true') return true
  if (value === '0' || value === 'false') return false
  throw badRequest(`${name} must be given once, as 0, 1, true or false.`)
}

/** `files[]` (or `files`): one or more ids, numbers or numeric strings, repeats dropped. */
export function fileIds (fields: BodyFields): number[] {
  const value = fields.files
  const list = value === undefined || value === '' ? [] : Array.isArray(value) ? value : [value]
  if (list.length === 0) throw badRequest('files must name at least one file.')
  if (list.length > maxShareFiles) throw badRequest(`files may name at most ${maxShareFiles} files.`)
  return [...new Set(list.map((item) => idValue(item, 'files')))]
}

/**
 * `expires`: Unix seconds in the future, or a date (YYYY-MM-DD) meaning the end of that day,
 * UTC. null when absent (the link does not expire).
 */
export function expiry (fields: BodyFields, nowMs: number): number | null {
  const value = single(fields, 'expires')
  if (value === undefined || value === '' || value === null) return null
  const text = typeof value === 'number' ? String(value) : value
  if (typeof text !== 'string') throw badRequest('expires must be Unix time in seconds or a date (YYYY-MM-DD).')
  let seconds: number
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim())
  if (date !== null) {
    const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])]
    const start = Date.UTC(year, month - 1, day)
    const parsed = new Date(start)
    // Date.UTC rolls 2025-02-30 over into March; such a date does not exist.
    if (parsed.getUTCFullYear() !== year || parsed.getUTCMonth() !== month - 1 || parsed.getUTCDate() !== day) throw badRequest(`expires: there is no date ${text.trim()}.`)
    seconds = (start + 24 * 3600 * 1000) / 1000
  } else if (/^\d{1,12}$/.test(text.trim())) {
    seconds = Number(text.trim())
  } else {
    throw badRequest('expires must be Unix time in seconds or a date (YYYY-MM-DD).')
  }
  if (seconds * 1000 <= nowMs) throw badRequest('expires must lie in the future.')
  return seconds
}
