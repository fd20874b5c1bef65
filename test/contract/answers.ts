// Holds an answer to the OpenAPI description, as a contract tester does: its status is one the
// operation declares, its media type one declared for that status, its body fits that media
// type's schema (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses it, with the formats the
// description names), the headers it declares are there when required and well-formed when sent,
// and a text/event-stream is events the stream's schema describes, each event's JSON data its
// own. It returns the ways the answer departs from the description (empty when it keeps to it).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'

export interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** One message of a text/event-stream, its fields as sent. */
export interface StreamEvent {
  event?: string
  id?: string
  data?: string
}

interface Response {
  description?: string
  headers?: Record<string, { required?: boolean, schema: object }>
  content?: Record<string, { schema: object }>
}

export interface Description {
  paths: Record<string, Record<string, { responses: Record<string, Response> }>>
  components: { schemas: Record<string, any> }
}

export function answerChecker (description: Description): (path: string, method: string, answer: Answer) => string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  // ajv-formats is CommonJS: its function is the module's default.
  addFormats.default(ajv)
  ajv.addSchema(description, 'openapi.json')
  const compiled = new Map<string, ValidateFunction>()
  /** The schema at this place of the description, compiled with its references. */
  const validatorAt = (...place: string[]): ValidateFunction => {
    const pointer = place.map((segment) => encodeURIComponent(segment.replaceAll('~', '~0').replaceAll('/', '~1'))).join('/')
    let validate = compiled.get(pointer)
    if (validate === undefined) {
      validate = ajv.compile({ $ref: `openapi.json#/${pointer}` })
      compiled.set(pointer, validate)
    }
    return validate
  }
  const problemsOf = (validate: ValidateFunction, value: unknown, what: string): string[] =>
    validate(value) ? [] : [`${what} does not fit its schema: ${ajv.errorsText(validate.errors)}; ${JSON.stringify(value).slice(0, 300)}`]

  return (path, method, answer) => {
    const operation = description.paths[path]?.[method.toLowerCase()]
    if (operation === undefined) return [`${method} ${path} is not in the description`]
    const problems: string[] = []
    if (answer.status >= 500 && answer.status !== 502 && answer.status !== 503 && answer.status !== 504) problems.push(`a ${answer.status}: ${answer.body.slice(0, 300)}`)
    const key = [String(answer.status), `${String(answer.status)[0] ?? ''}XX`, 'default'].find((candidate) => operation.responses[candidate] !== undefined)
    if (key === undefined) return [...problems, `status ${answer.status} is not one ${method} ${path} declares (${Object.keys(operation.responses).join(', ')}): ${answer.body.slice(0, 300)}`]
    const declared = operation.responses[key] as Response
    const place = ['paths', path, method.toLowerCase(), 'responses', key]

    for (const [name, header] of Object.entries(declared.headers ?? {})) {
      const raw = answer.headers[name.toLowerCase()]
      const value = Array.isArray(raw) ? raw.join(', ') : raw
      if (value === undefined) {
        if (header.required === true) problems.push(`no ${name}, which every ${key} of it carries`)
        continue
      }
      problems.push(...problemsOf(validatorAt(...place, 'headers', name, 'schema'), value, `its ${name} header`))
    }

    const contentType = String(answer.headers['content-type'] ?? '')
    const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? ''
    if (declared.content === undefined) {
      if (answer.body !== '') problems.push(`a body where ${key} declares none: ${answer.body.slice(0, 200)}`)
      return problems
    }
    if (answer.body === '' && answer.status === 204) return problems
    if (declared.content[mediaType] === undefined) return [...problems, `media type "${contentType}", where ${key} declares ${Object.keys(declared.content).join(', ')}`]
    const schemaPlace = [...place, 'content', mediaType, 'schema']
    if (mediaType === 'application/json') {
      let body: unknown
      try {
        body = JSON.parse(answer.body)
      } catch {
        return [...problems, `a body that is not JSON: ${answer.body.slice(0, 200)}`]
      }
      problems.push(...problemsOf(validatorAt(...schemaPlace), body, 'the body'))
    } else if (mediaType === 'text/event-stream') {
      const stream = (declared.content[mediaType]?.schema ?? {}) as { anyOf?: Array<{ properties: { event: { enum?: string[], const?: string } } }> }
      const events = eventsOf(answer.body)
      if (events.length === 0) problems.push('a stream without a single event')
      for (const event of events) {
        problems.push(...problemsOf(validatorAt(...schemaPlace), event, `the event ${JSON.stringify(event).slice(0, 100)}`))
        const branch = (stream.anyOf ?? []).findIndex((member) => (member.properties.event.const ?? member.properties.event.enum?.[0]) === event.event)
        if (branch < 0 || event.data === undefined) continue
        let data: unknown
        try {
          data = JSON.parse(event.data)
        } catch {
          problems.push(`the data of ${String(event.event)} is not JSON: ${event.data}`)
          continue
        }
        problems.push(...problemsOf(validatorAt(...schemaPlace, 'anyOf', String(branch), 'properties', 'data', 'contentSchema'), data, `the data of ${String(event.event)}`))
      }
    } else {
      problems.push(...problemsOf(validatorAt(...schemaPlace), answer.body, 'the body'))
    }
    return problems
  }
}

/** The events of a text/event-stream as sent (comment and `retry` lines aside; an unfinished last one dropped). */
export function eventsOf (text: string): StreamEvent[] {
  const blocks = text.replace(/\r\n?/g, '\n').split('\n\n')
  blocks.pop()
  return blocks.flatMap((block) => {
    const event: StreamEvent = {}
    for (const line of block.split('\n')) {
      const colon = line.indexOf(':')
      if (colon === 0) continue
      const field = colon < 0 ? line : line.slice(0, colon)
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
      if (field === 'event' || field === 'id') event[field] = value
      else if (field === 'data') event.data = event.data === undefined ? value : `${event.data}\n${value}`
    }
    return Object.keys(event).length === 0 ? [] : [event]
  })
}
