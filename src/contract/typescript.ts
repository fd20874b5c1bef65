// The contract (src/contract/index.ts) as TypeScript declarations for the browser module:
// public/client/contract.ts, written by `npm run generate`. The schemas use a small part of JSON
// Schema (objects, arrays, records, unions, literals, enums, the plain types) and each named one
// becomes one declaration, referred to by name wherever another holds it (by its title: TypeBox
// copies a schema it makes optional). A schema outside that part is refused, not guessed at.
import { CONTRACT } from './index.js'

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

export function contractTypes (contract: Readonly<Record<string, object>> = CONTRACT): string {
  const names = new Set(Object.keys(contract))
  const declarations = Object.entries(contract).map(([name, schema]) => {
    const plain = JSON.parse(JSON.stringify(schema)) as Schema
    const body = typeOf(plain, names, '', true)
    const keyword = plain.type === 'object' && plain.patternProperties === undefined ? `interface ${name} ` : `type ${name} = `
    return `${doc(plain.description, '')}export ${keyword}${body}\n`
  })
  return `${HEAD}\n${declarations.join('\n')}`
}

function typeOf (schema: Schema, names: ReadonlySet<string>, indent: string, top = false): string {
  if (!top && schema.title !== undefined && names.has(schema.title)) return schema.title
  if (schema.const !== undefined) return JSON.stringify(schema.const)
  if (schema.enum !== undefined) return schema.enum.map((value) => JSON.stringify(value)).join(' | ')
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

function objectOf (schema: Schema, names: ReadonlySet<string>, indent: string): string {
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

function doc (description: string | undefined, indent: string): string {
  return description === undefined ? '' : `${indent}/** ${description.replace(/\*\//g, '* /')} */\n`
}
