// How each group of routes reads its body: Fastify content-type parsers, registered inside the
// group's own plugin scope (parsers are encapsulated per scope, so groups never see each
// other's). Fastify's default JSON and text parsers are removed in every scope; a body no
// parser takes is never read, and the error handler closes its connection.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { jsonFields, maxBodyBytes, parseUrlEncoded, type BodyFields } from './body-fields.js'
import { EmulatorError, badRequest } from './emulator-error.js'
import { readMultipartFields } from './multipart-fields.js'
import { hasBody } from './requests.js'

/**
 * The small bodies of API calls and test hooks, JSON, url-encoded or multipart fields alike, as
 * one plain object (media-service.md: the body "may be multipart, url-encoded, JSON, or
 * empty"). Other types are 415. Read with fieldsOf().
 */
export function acceptFields (scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers()
  const parseJson = scope.getDefaultJsonParser('error', 'error')
  const jsonParser = (request: FastifyRequest, text: string, done: (error: Error | null, body?: BodyFields) => void): void => {
    if (text.trim() === '') {
      done(null, {})
      return
    }
    parseJson(request, text, (error: Error | null, value?: unknown) => {
      if (error !== null) {
        done(badRequest('The body is not valid JSON.'))
        return
      }
      try {
        done(null, jsonFields(value))
      } catch (refused) {
        done(refused as EmulatorError)
      }
    })
  }
  scope.addContentTypeParser<string>('application/json', { parseAs: 'string', bodyLimit: maxBodyBytes }, jsonParser)
  scope.addContentTypeParser<string>(/^[^;]*\+json\s*(;|$)/, { parseAs: 'string', bodyLimit: maxBodyBytes }, jsonParser)
  scope.addContentTypeParser<string>('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: maxBodyBytes }, (_request, text, done) => {
    done(null, parseUrlEncoded(text))
  })
  scope.addContentTypeParser('multipart/form-data', async (request: FastifyRequest) => hasBody(request) ? await readMultipartFields(request.raw) : {})
  scope.addContentTypeParser('*', async (request: FastifyRequest) => {
    if (!hasBody(request)) return {}
    const type = request.headers['content-type'] ?? ''
    throw new EmulatorError(415, 'unsupported_media_type', `A body of type ${type === '' ? '(none given)' : type} is not understood; send JSON, url-encoded or multipart form data.`)
  })
}

/** The fields parsed by acceptFields; none when no body was sent. */
export function fieldsOf (request: FastifyRequest): BodyFields {
  return (request.body as BodyFields | undefined) ?? {}
}

/**
 * Url-encoded forms only (the token endpoint, the consent form), as URLSearchParams so repeated
 * parameters can be refused. Any other body is left unread: each route refuses it in its own
 * words (an OAuth error, an HTML page). Read with formOf().
 */
export function acceptForm (scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers()
  scope.addContentTypeParser<string>('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: maxBodyBytes }, (_request, text, done) => {
    done(null, new URLSearchParams(text))
  })
  scope.addContentTypeParser('*', (_request, _payload, done) => { done(null) })
}

/** The form parsed by acceptForm; undefined when the body was not a url-encoded form. */
export function formOf (request: FastifyRequest): URLSearchParams | undefined {
  return request.body instanceof URLSearchParams ? request.body : undefined
}

/** Nothing is read: the upload routes stream request.raw to disk themselves, within their limits. */
export function acceptStream (scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers()
  scope.addContentTypeParser('*', (_request, _payload, done) => { done(null) })
}
