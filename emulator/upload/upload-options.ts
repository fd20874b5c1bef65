// The registration options of media-service.md part B, read from whatever encoding the body
// had. Ids and numbers may arrive as numeric strings and booleans as 1/0/"true", because real
// clients send them that way.
import { badRequest } from '../http/emulator-error.js'
import type { BodyFields } from '../http/body-fields.js'
import { flag, idValue, single } from '../http/field-readers.js'

export interface UploadOptions {
  /** Bytes per file. */
  maxFilesize: number | undefined
  maxFiles: number | undefined
  /** Bytes over all files of the registration. */
  maxSize: number | undefined
  /** Lower-case, without the dot. */
  fileExtensions: string[] | undefined
  noTranscode: boolean
  hideResponse: boolean
  autofinish: boolean
}

export interface RegistrationRequest {
  folderId: number
  title: string | undefined
  options: UploadOptions
}

export function parseFolderId (value: unknown, name = 'folder_id'): number {
  return idValue(value, name)
}

function positiveInteger (fields: BodyFields, name: string): number | undefined {
  const value = single(fields, name)
  if (value === undefined || value === '') return undefined
  const text = typeof value === 'number' ? String(value) : value
  if (typeof text !== 'string' || !/^\d{1,15}$/.test(text.trim()) || Number(text) < 1) throw badRequest(`${name} must be a positive integer.`)
  return Number(text)
}

function extensions (fields: BodyFields): string[] | undefined {
  const value = fields.file_extensions
  if (value === undefined || value === '') return undefined
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : undefined
  if (items === undefined || !items.every((item) => typeof item === 'string')) throw badRequest('file_extensions must be a comma-separated list or an array of extensions.')
  const cleaned = (items as string[]).map((item) => item.trim().replace(/^\./, '').toLowerCase()).filter((item) => item !== '')
  if (cleaned.length === 0) return undefined
  const bad = cleaned.filter((item) => !/^[a-z0-9]{1,16}$/.test(item))
  if (bad.length > 0) throw badRequest(`file_extensions has invalid entries: ${bad.join(', ')}.`)
  return [...new Set(cleaned)]
}

export function parseRegistrationRequest (fields: BodyFields): RegistrationRequest {
  const folderValue = single(fields, 'folder_id')
  const folderId = folderValue === undefined || folderValue === '' ? 0 : parseFolderId(folderValue)
  const title = single(fields, 'title')
  if (title !== undefined && (typeof title !== 'string' || title.length > 500)) throw badRequest('title must be a string of at most 500 characters.')
  return {
    folderId,
    title: title === '' ? undefined : title as string | undefined,
    options: {
      maxFilesize: positiveInteger(fields, 'max_filesize'),
      maxFiles: positiveInteger(fields, 'max_files'),
      maxSize: positiveInteger(fields, 'max_size'),
      fileExtensions: extensions(fields),
      noTranscode: flag(fields, 'no_transcode', false),
      hideResponse: flag(fields, 'hide_response', false),
      autofinish: flag(fields, 'autofinish', true)
    }
  }
}
