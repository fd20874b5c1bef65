// The contract (src/contract/index.ts) as TypeScript declarations for the browser module:
// public/client/contract.ts, written by `npm run generate`. The schemas use a small part of JSON
// Schema (objects, arrays, records, unions, literals, enums, the plain types) and each named one
// becomes one declaration, referred to by name wherever another holds it (by its title: TypeBox
// copies a schema it makes optional). A schema outside that part is refused, not guessed at. The
// live channel's events (live-events.ts) become one more declaration, LiveEventData: each event's
// name with the type of its data.
import { CONTRACT } from './index.js'
import { LIVE_CHANNEL } from './live-events.js'

interface Schema {
  title?: string
  description?: string
  type?: string
  const?: unknown
  enum?: unknown[]
  anyOf?: Schema[]
  items?: Schema
  properties?: Record<string, Schema>
  required?: string[]
  additionalProperties?: boolean | Schema
  patternProperties?: Record<string, Schema>
  format?: string
}

const HEAD = `// Written from src/contract/ by \`npm run generate\`: edit the schemas there, never this file.
// The JSON media-bff answers with (and takes), as its routes describe it in /docs; every field a
// relayed answer of the media service holds is the service's text: show it with textContent.
`

/** An event of the live channel as the writer needs it: its data's named schema, and what it is. */
interface ChannelEvent { data: object, description: string }

export function contractTypes (contract: Readonly<Record<string, object>> = CONTRACT, channel: Readonly<Record<string, ChannelEvent>> = LIVE_CHANNEL): string {
  const names = new Set(Object.keys(contract))
  const declarations = Object.entries(contract).map(([name, schema]) => {
    const plain = JSON.parse(JSON.stringify(schema)) as Schema
    const body = typeOf(plain, names, '', true)
    const keyword = plain.type === 'object' && plain.patternProperties === undefined && !isEmptyRecord(plain) ? `interface ${name} ` : `type ${name} = `
    return `${doc(plain.description, '')}export ${keyword}${body}\n`
  })
  return `${HEAD}\n${[...declarations, channelEvents(channel, names)].join('\n')}`
}

/** LiveEventData: each event of the live channel by its name, with its data's named type. */
function channelEvents (channel: Readonly<Record<string, ChannelEvent>>, names: ReadonlySet<string>): string {
  const lines = Object.entries(channel).map(([name, { data, description }]) => {
    const title = (data as Schema).title
    if (title === undefined || !names.has(title)) throw new Error(`the live event ${name}'s data is a named schema of the contract`)
    return `${doc(description, '  ')}  ${name}: ${title}`
  })
  return `${doc('The live channel\'s events (GET /events) by name, each with the JSON of its data', '')}export interface LiveEventData {\n${lines.join('\n')}\n}\n`
}

function typeOf (schema: Schema, names: ReadonlySet<string>, indent: string, top = false): string {
  if (!top && schema.title !== undefined && names.has(schema.title)) return schema.title
  if (schema.const !== undefined) return literal(schema.const)
  if (schema.enum !== undefined) return schema.enum.map(literal).join(' | ')
  if (schema.anyOf !== undefined) return schema.anyOf.map((member) => typeOf(member, names, indent)).join(' | ')
  switch (schema.type) {
    case 'string': return 'string'
    case 'integer':
    case 'number': return 'number'
    case 'boolean': return 'boolean'
    case 'null': return 'null'
    case 'array': {
      if (schema.items === undefined) break
      const item = typeOf(schema.items, names, indent)
      return /[ |]/.test(item) ? `Array<${item}>` : `${item}[]`
    }
    case 'object': return objectOf(schema, names, indent)
  }
  throw new Error(`the contract uses a schema the type writer does not know: ${JSON.stringify(schema)}`)
}

/** An object that may hold nothing at all. */
function isEmptyRecord (schema: Schema): boolean {
  return Object.keys(schema.properties ?? {}).length === 0 && schema.patternProperties === undefined && schema.additionalProperties === false
}

function objectOf (schema: Schema, names: ReadonlySet<string>, indent: string): string {
  if (isEmptyRecord(schema)) return 'Record<string, never>'
  if (schema.patternProperties !== undefined) {
    const values = Object.values(schema.patternProperties)
    if (values.length !== 1 || values[0] === undefined) throw new Error('a record has one value schema')
    return `Record<string, ${typeOf(values[0], names, indent)}>`
  }
  const inner = `${indent}  `
  const required = new Set(schema.required ?? [])
  // A named schema's description is on its own declaration, not repeated at every use.
  const lines = Object.entries(schema.properties ?? {}).map(([key, value]) =>
    `${doc(value.title !== undefined && names.has(value.title) ? undefined : value.description, inner)}${inner}${key}${required.has(key) ? '' : '?'}: ${typeOf(value, names, inner)}`)
  // More than the schema names may come (the service's own fields): readable, never typed.
  if (schema.additionalProperties === true) lines.push(`${inner}[field: string]: unknown`)
  return lines.length === 0 ? '{}' : `{\n${lines.join('\n')}\n${indent}}`
}

/** A literal type, strings in single quotes as the project's style has them. */
function literal (value: unknown): string {
  return typeof value === 'string' ? `'${value.replace(/[\\']/g, (c) => `\\${c}`)}'` : JSON.stringify(value)
}

function doc (description: string | undefined, indent: string): string {
  return description === undefined ? '' : `${indent}/** ${description.replace(/\*\//g, '* /')} */\n`
}
