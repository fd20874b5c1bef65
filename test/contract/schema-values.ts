// Inputs made from the JSON Schemas of the OpenAPI description, as a contract tester makes them:
// values that fit a schema (fast-check arbitraries, sampled with a fixed seed), and the ways to
// break one (a required field missing, a field of another type, a field too many, a string too
// long, a number out of range). Only the part of JSON Schema the description's requests use is
// known; anything else is refused rather than guessed at.
import fc from 'fast-check'

export type Schema = Record<string, any>

/** Follows a `$ref` into the description's components. */
export type Resolve = (schema: Schema) => Schema

/** At most this many items, and characters of a string without a bound: requests stay small. */
const SMALL = 3
const SHORT = 24

/** An arbitrary of values that fit the schema. */
export function valuesOf (schema: Schema, resolve: Resolve): fc.Arbitrary<unknown> {
  const plain = resolve(schema)
  if (plain.const !== undefined) return fc.constant(plain.const)
  if (Array.isArray(plain.enum)) return fc.constantFrom(...plain.enum as unknown[])
  if (Array.isArray(plain.examples) && plain.examples.length > 0) return fc.constantFrom(...plain.examples as unknown[])
  if (Array.isArray(plain.anyOf)) return fc.oneof(...(plain.anyOf as Schema[]).map((member) => valuesOf(member, resolve)))
  switch (plain.type) {
    case 'string': return stringsOf(plain)
    case 'integer': return fc.integer({ min: plain.minimum ?? -1000, max: Math.min(plain.maximum ?? 100_000, Number.MAX_SAFE_INTEGER) })
    case 'number': return fc.integer({ min: plain.minimum ?? -1000, max: plain.maximum ?? 100_000 })
    case 'boolean': return fc.boolean()
    case 'null': return fc.constant(null)
    case 'array': {
      const minLength = plain.minItems ?? 0
      return fc.array(valuesOf(plain.items ?? {}, resolve), { minLength, maxLength: Math.max(minLength, Math.min(plain.maxItems ?? SMALL, SMALL)) })
    }
    case 'object': {
      const properties = (plain.properties ?? {}) as Record<string, Schema>
      const model = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, valuesOf(property, resolve)]))
      return fc.record(model, { requiredKeys: plain.required ?? [] })
    }
  }
  throw new Error(`a request schema the generator does not know: ${JSON.stringify(plain)}`)
}

function stringsOf (schema: Schema): fc.Arbitrary<string> {
  const minLength: number = schema.minLength ?? 0
  switch (schema.format) {
    case 'uuid': return fc.uuid()
    case 'date-time': return fc.date({ min: new Date(0), max: new Date(4_102_444_800_000), noInvalidDate: true }).map((date) => date.toISOString())
  }
  // A pattern bounds its strings itself; the schema's own bounds, where it has them, on top.
  if (typeof schema.pattern === 'string') {
    const maxLength: number = schema.maxLength ?? Infinity
    return fc.stringMatching(new RegExp(schema.pattern, 'u')).filter((value) => value.length >= minLength && value.length <= maxLength)
  }
  return fc.string({ minLength, maxLength: Math.min(schema.maxLength ?? SHORT, Math.max(minLength, SHORT)) })
}

/** `count` values of the schema, the same for the same seed. */
export function samplesOf (schema: Schema, resolve: Resolve, seed: number, count: number): unknown[] {
  return fc.sample(valuesOf(schema, resolve), { seed, numRuns: count })
}

/** One way to break a valid object: its name, and the object broken. */
export interface Breakage {
  name: string
  value: Record<string, unknown>
}

/**
 * The ways to break `valid`, an object that fits `schema` (a body, or a query or path taken as an
 * object): each required field missing, each field of another type, each string one character
 * too long, each number out of range, and a field the schema does not name.
 */
export function breakagesOf (schema: Schema, resolve: Resolve, valid: Record<string, unknown>): Breakage[] {
  const plain = resolve(schema)
  const properties = (plain.properties ?? {}) as Record<string, Schema>
  const broken: Breakage[] = []
  const withField = (name: string, value: unknown): Record<string, unknown> => ({ ...valid, [name]: value })
  for (const name of (plain.required ?? []) as string[]) {
    const { [name]: _gone, ...rest } = valid
    broken.push({ name: `without ${name}`, value: rest })
  }
  for (const [name, property] of Object.entries(properties)) {
    const field = resolve(property)
    broken.push({ name: `${name} of another type`, value: withField(name, otherType(field, resolve)) })
    const longest = maxLengthOf(field, resolve)
    if (longest !== undefined) broken.push({ name: `${name} of ${longest + 1} characters`, value: withField(name, 'x'.repeat(longest + 1)) })
    if (typeof field.maximum === 'number') broken.push({ name: `${name} over its maximum`, value: withField(name, field.maximum + 1) })
    if (typeof field.minimum === 'number') broken.push({ name: `${name} under its minimum`, value: withField(name, field.minimum - 1) })
    // An object within: broken the same ways, where the valid value holds one.
    const inner = valid[name]
    if (field.type === 'object' && inner !== null && typeof inner === 'object' && !Array.isArray(inner)) {
      for (const nested of breakagesOf(field, resolve, inner as Record<string, unknown>)) broken.push({ name: `${name}.${nested.name}`, value: withField(name, nested.value) })
    }
  }
  broken.push({ name: 'a field it does not name', value: withField('not_a_field', 'x') })
  return broken
}

/** A value no coercion turns into one of the schema's types. */
function otherType (schema: Schema, resolve: Resolve): unknown {
  const types = typesOf(schema, resolve)
  if (!types.has('object')) return { not: 'this' }
  if (!types.has('string')) return 'not this'
  return [{ not: 'this' }]
}

function typesOf (schema: Schema, resolve: Resolve): Set<string> {
  const plain = resolve(schema)
  if (Array.isArray(plain.anyOf)) return new Set((plain.anyOf as Schema[]).flatMap((member) => [...typesOf(member, resolve)]))
  if (typeof plain.type === 'string') return new Set([plain.type])
  if (plain.const !== undefined || plain.enum !== undefined) return new Set([typeof (plain.const ?? plain.enum[0])])
  return new Set()
}

/** The longest string the schema takes, when it bounds it. */
function maxLengthOf (schema: Schema, resolve: Resolve): number | undefined {
  const plain = resolve(schema)
  if (typeof plain.maxLength === 'number') return plain.maxLength
  if (Array.isArray(plain.anyOf)) {
    const bounds = (plain.anyOf as Schema[]).map((member) => maxLengthOf(member, resolve)).filter((bound): bound is number => bound !== undefined)
    return bounds.length === 0 ? undefined : Math.max(...bounds)
  }
  return undefined
}
