// Reads the fields of a small multipart body (a registration, a finish with a private_token
// field) into the same plain object the JSON and url-encoded parsers produce. A file part is
// refused: files go to the upload routes, which stream them (upload/receive-file.ts).
import type { IncomingMessage } from 'node:http'
import { Busboy, type BusboyInstance } from '@fastify/busboy'
import { badRequest, type EmulatorError } from './emulator-error.js'
import { addField, maxBodyBytes, tooLarge, type BodyFields } from './body-fields.js'

export async function readMultipartFields (req: IncomingMessage): Promise<BodyFields> {
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
