// Streams the one file of a multipart upload to disk while hashing it, never holding it in
// memory: busboy's file stream is read chunk by chunk, each chunk counted against the limits,
// hashed (sha256) and written before the next is read, so backpressure reaches the socket.
// When a limit is crossed the partial file is deleted; the caller answers and closes the
// connection.
import { createHash, randomUUID } from 'node:crypto'
import { open, rm } from 'node:fs/promises'
import type { IncomingMessage } from 'node:http'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { Busboy, type BusboyInstance } from '@fastify/busboy'
import { EmulatorError, badRequest } from '../http/emulator-error.js'
import { mediaTypeOf } from '../http/requests.js'
import { fileTooLarge } from './upload-checks.js'
import type { ReceivedFile } from './upload-store.js'

export interface FileRules {
  /** Bytes per file (413 beyond). */
  maxFileSize?: number
  /** Called when the file part starts; throws to refuse it (extension, number of files). */
  beforeFile?: (filename: string) => void
  /** Called for every chunk before it is written; throws to stop (total size). */
  onBytes?: (bytes: number) => void
}

export interface ReceivedUpload {
  fields: Record<string, string>
  file: ReceivedFile
}

export async function receiveFile (req: IncomingMessage, incomingDir: string, rules: FileRules = {}): Promise<ReceivedUpload> {
  if (mediaTypeOf(req) !== 'multipart/form-data') {
    throw new EmulatorError(415, 'unsupported_media_type', 'Upload the file as multipart/form-data with the field "file".')
  }
  let parser: BusboyInstance
  try {
    // One file per request; a second file part is an error, not silently ignored. Throws
    // without a boundary. File names and field values are read as UTF-8.
    parser = new Busboy({ headers: { ...req.headers, 'content-type': req.headers['content-type'] ?? '' }, limits: { files: 1, fields: 50, parts: 60, fieldSize: 64 * 1024 } })
  } catch {
    throw badRequest('The multipart body has no usable boundary.')
  }

  return await new Promise<ReceivedUpload>((resolve, reject) => {
    const fields: Record<string, string> = {}
    const abort = new AbortController()
    let writing: Promise<ReceivedFile> | undefined
    let failure: unknown

    const fail = (error: unknown): void => {
      if (failure !== undefined) return
      failure = error
      req.unpipe(parser)
      abort.abort()
      // Answer only once the partial (or already complete) file is gone, so whoever reads the
      // error never finds leftovers. An aborted write deletes its own file before it settles.
      const removed = writing?.then(async (file) => { await rm(file.tempPath, { force: true }) }, () => {}) ?? Promise.resolve()
      removed.finally(() => { reject(error) }).catch(() => {})
    }

    parser.on('field', (name, value, _nameTruncated, valueTruncated) => {
      if (valueTruncated) fail(badRequest(`The field ${name} is too long.`))
      else fields[name] = value
    })
    parser.on('file', (name, stream, filename, _transferEncoding, mimeType) => {
      // busboy emits its own error on the file stream when the body breaks off, possibly before
      // writeFile starts reading; that error reaches fail() through the parser's 'error'.
      stream.on('error', () => {})
      if (failure !== undefined) {
        stream.resume()
        return
      }
      if (name !== 'file') {
        stream.resume()
        fail(badRequest(`Send the file in the field "file" (got "${name}").`))
        return
      }
      // A part is a file when it has a file name or is application/octet-stream, so the name
      // may be missing.
      if (filename === undefined || filename === '') {
        stream.resume()
        fail(badRequest('The file part carries no file name.', 'missing_file'))
        return
      }
      try {
        rules.beforeFile?.(filename)
      } catch (error) {
        stream.resume()
        fail(error)
        return
      }
      writing = writeFile(stream, filename, mimeType, incomingDir, rules, abort.signal)
      writing.catch(fail)
    })
    parser.on('filesLimit', () => fail(badRequest('Send one file per request.', 'too_many_files_in_request')))
    parser.on('fieldsLimit', () => fail(badRequest('The form has too many fields.')))
    parser.on('partsLimit', () => fail(badRequest('The form has too many parts.')))
    parser.on('error', () => fail(badRequest('The multipart body is malformed.')))
    // 'finish' comes once the body has been parsed to its end and the file stream has ended.
    parser.on('finish', () => {
      if (failure !== undefined) return
      if (writing === undefined) {
        fail(badRequest('No file was sent; send it in the multipart field "file".', 'missing_file'))
        return
      }
      writing.then((file) => {
        if (failure === undefined) resolve({ fields, file })
      }, fail)
    })
    req.on('close', () => {
      if (!req.complete) fail(badRequest('The upload ended before it was complete.', 'upload_incomplete'))
    })
    req.pipe(parser)
  })
}

async function writeFile (stream: Readable, filename: string, mimeType: string, incomingDir: string, rules: FileRules, signal: AbortSignal): Promise<ReceivedFile> {
  const tempPath = join(incomingDir, `${randomUUID()}.part`)
  const hash = createHash('sha256')
  let size = 0
  const file = await open(tempPath, 'wx')
  // A failure elsewhere (the client hung up, the request was abandoned) leaves this stream
  // without data and without an end; destroying it ends the loop below, which cleans up.
  const stopReading = (): void => { stream.destroy(new Error('The upload was abandoned.')) }
  if (signal.aborted) stopReading()
  signal.addEventListener('abort', stopReading, { once: true })
  try {
    // One chunk at a time, awaited: each socket buffer is dropped as soon as it is on disk, so
    // few survive into V8's old generation, and backpressure reaches the socket directly.
    for await (const chunk of stream.iterator({ destroyOnReturn: true }) as AsyncIterable<Buffer>) {
      if (signal.aborted) throw signal.reason
      size += chunk.length
      if (rules.maxFileSize !== undefined && size > rules.maxFileSize) {
        throw fileTooLarge(rules.maxFileSize)
      }
      rules.onBytes?.(chunk.length)
      hash.update(chunk)
      await file.write(chunk)
    }
    if (signal.aborted) throw signal.reason
  } catch (error) {
    await file.close()
    await rm(tempPath, { force: true })
    throw error
  } finally {
    signal.removeEventListener('abort', stopReading)
  }
  await file.close()
  return { tempPath, filename, mimeType, size, sha256: hash.digest('hex') }
}
