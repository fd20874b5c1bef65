// Reads the small bodies of API calls (JSON, url-encoded or multipart fields) into one plain
// object, so every route accepts every encoding the service is seen to accept. Files are not
// expected here; the upload routes stream theirs with upload/receive-file.ts instead.
import type { IncomingMessage } from 'node:http'
import { Busboy, type BusboyInstance } from '@fastify/busboy'
import { EmulatorError, badRequest } from './emulator-error.js'

export const maxBodyBytes = 1024 * 1024

export type BodyFields = Record<string, unknown>

export function mediaTypeOf (req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
}

export function hasBody (req: IncomingMessage): boolean {
  const length = req.headers['content-length']
  if (length !== undefined) return length !== '0'
  return req.headers['transfer-encoding'] !== undefined
}

export async function readBodyFields (req: IncomingMessage): Promise<BodyFields> {
  if (!hasBody(req)) return {}
  const type = mediaTypeOf(req)
  if (type === 'application/json' || type.endsWith('+json')) return parseJsonObject(await readRawBody(req))
  if (type === 'application/x-www-form-urlencoded') return parseUrlEncoded((await readRawBody(req)).toString('utf8'))
  if (type === 'multipart/form-data') return await readMultipartFields(req)
  throw new EmulatorError(415, 'unsupported_media_type', `A body of type ${type === '' ? '(none given)' : type} is not understood; send JSON, url-encoded or multipart form data.`)
}

export function tooLarge (): EmulatorError {
  return new EmulatorError(413, 'payload_too_large', `The request body is larger than ${maxBodyBytes} bytes.`)
}

export async function readRawBody (req: IncomingMessage, limit = maxBodyBytes): Promise<Buffer> {
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > limit) throw tooLarge()
  // Listeners rather than for-await: leaving a for-await early would destroy the request, and
  // with it the socket the 413 has to go out on.
  return await new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const settle = (error?: EmulatorError): void => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('close', onClose)
      if (error === undefined) resolve(Buffer.concat(chunks))
      else reject(error)
    }
    const onData = (chunk: Buffer): void => {
      size += chunk.length
      if (size > limit) settle(tooLarge())
      else chunks.push(chunk)
    }
    const onEnd = (): void => { settle() }
    const onClose = (): void => { if (!req.complete) settle(badRequest('The request body ended early.')) }
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('close', onClose)
  })
}

export function parseJsonObject (raw: Buffer): BodyFields {
  const text = raw.toString('utf8')
  if (text.trim() === '') return {}
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw badRequest('The body is not valid JSON.')
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badRequest('The JSON body must be an object.')
  return value as BodyFields
}

/** Repeated keys become arrays (`a=1&a=2`), as PHP-style services accept them. */
export function parseUrlEncoded (text: string): BodyFields {
  const fields: BodyFields = {}
  for (const [key, value] of new URLSearchParams(text)) addField(fields, key, value)
  return fields
}

function addField (fields: BodyFields, key: string, value: string): void {
  const name = key.endsWith('[]') ? key.slice(0, -2) : key
  const existing = fields[name]
  if (existing === undefined) fields[name] = key.endsWith('[]') ? [value] : value
  else if (Array.isArray(existing)) existing.push(value)
  else fields[name] = [existing, value]
}

async function readMultipartFields (req: IncomingMessage): Promise<BodyFields> {
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > maxBodyBytes) throw tooLarge()
  let parser: BusboyInstance
  try {
    // Throws without a content type or boundary. Field values and names are read as UTF-8.
    parser = new Busboy({ headers: { ...req.headers, 'content-type': req.headers['content-type'] ?? '' }, limits: { fieldSize: 64 * 1024, fields: 200, parts: 200 } })
  } catch {
    throw badRequest('The multipart body has no usable boundary.')
  }
  return await new Promise<BodyFields>((resolve, reject) => {
    const fields: BodyFields = {}
    let settled = false
    let size = 0
    const fail = (error: EmulatorError): void => {
      if (settled) return
      settled = true
      req.unpipe(parser)
      reject(error)
    }
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBodyBytes) fail(tooLarge())
    })
    parser.on('field', (name, value, _nameTruncated, valueTruncated) => {
      if (valueTruncated) fail(tooLarge())
      // A part without name="..." comes with no name at all, whatever the types say.
      else if (typeof name !== 'string') fail(badRequest('A form field has no name.'))
      else addField(fields, name, value)
    })
    parser.on('file', (name, stream) => {
      // A broken body also errors the file stream; the parser's 'error' reports it.
      stream.on('error', () => {})
      stream.resume()
      fail(badRequest(`This endpoint takes no file (the part "${name}" is one).`))
    })
    parser.on('fieldsLimit', () => fail(badRequest('The form has too many fields.')))
    parser.on('partsLimit', () => fail(badRequest('The form has too many parts.')))
    parser.on('error', () => fail(badRequest('The multipart body is malformed.')))
    // 'finish' comes once the body has been parsed to its end, every part included.
    parser.on('finish', () => {
      if (settled) return
      settled = true
      resolve(fields)
    })
    req.on('close', () => {
      if (!req.complete) fail(badRequest('The request body ended early.'))
    })
    req.pipe(parser)
  })
}
