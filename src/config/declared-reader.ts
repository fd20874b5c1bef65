// The environment, read through the declaration of each variable (src/config/variables.ts): a
// reader takes its default, bounds and choices from there, never from the code that reads, so the
// declaration, the docs and .env.example cannot disagree with what is read. Reading a variable
// that is not declared, or as another type than declared, throws: a programming error the tests
// meet at once. Problems and warnings go to the EnvReader underneath (one message at start).
import { EnvReader, type Env } from './env-reader.js'
import { declared, type Variable, type VariableType } from './variables.js'

export class DeclaredReader {
  /** The names read so far: every declared variable is read by someone (test/config/declaration.test.ts). */
  readonly names = new Set<string>()
  readonly env: EnvReader

  constructor (env: Env | EnvReader) {
    this.env = env instanceof EnvReader ? env : new EnvReader(env)
  }

  get problems (): string[] { return this.env.problems }
  get warnings (): string[] { return this.env.warnings }

  problem (name: string, message: string): void { this.env.problem(name, message) }
  warn (name: string, message: string): void { this.env.warn(name, message) }

  /** The trimmed value as set, or undefined when unset or blank. */
  raw (name: string): string | undefined {
    this.spec(name)
    return this.env.raw(name)
  }

  string (name: string): string {
    const variable = this.spec(name, ['string', 'path', 'choice', 'secret', 'url', 'date-time', 'ratio'])
    return this.env.string(name, variable.default ?? '')
  }

  /** One of the declared choices (after `normalize`); anything else is a problem naming them. */
  choice (name: string, normalize: (value: string) => string = (value) => value): string {
    const variable = this.spec(name, ['choice'])
    const value = normalize(this.env.string(name, variable.default ?? ''))
    const choices = variable.choices ?? []
    if (!choices.includes(value)) {
      this.env.problem(name, `must be one of ${choices.join(', ')}, got "${value}"`)
      return variable.default ?? choices[0] ?? ''
    }
    return value
  }

  required (name: string): string {
    const variable = this.spec(name)
    return this.env.required(name, variable.description.split(/(?<=\.)\s/)[0]?.replace(/\.$/, '') ?? name)
  }

  list (name: string): string[] {
    const variable = this.spec(name, ['list', 'urls', 'secrets'])
    return this.env.list(name, variable.default === undefined || variable.default === '' ? [] : variable.default.split(','))
  }

  integer (name: string): number {
    const variable = this.spec(name, ['integer'])
    if (variable.default === undefined) throw new Error(`${name} has no default: read it with optionalInteger`)
    return this.env.integer(name, Number(variable.default), this.bounds(variable))
  }

  optionalInteger (name: string): number | undefined {
    return this.env.optionalInteger(name, this.bounds(this.spec(name, ['integer'])))
  }

  /** Milliseconds. */
  duration (name: string): number {
    const variable = this.spec(name, ['duration'])
    return this.env.duration(name, durationMs(variable), { ...(variable.min === undefined ? {} : { minMs: variable.min }), ...(variable.max === undefined ? {} : { maxMs: variable.max }) })
  }

  /** on or off (true, false, 1, 0, yes, no); `fallback` for one whose default follows another setting. */
  boolean (name: string, fallback?: boolean): boolean {
    const variable = this.spec(name, ['boolean'])
    return this.env.boolean(name, fallback ?? variable.default === 'on')
  }

  /**
   * An absolute http(s) URL without query or fragment: the variable's own, or `value`, one taken
   * from it (an entry of a list, a template filled in), judged in its name.
   */
  url (name: string, value: string | undefined = this.raw(name)): string | undefined {
    this.spec(name)
    return this.env.url(name, value)
  }

  private bounds (variable: Variable): { min?: number, max?: number } {
    return { ...(variable.min === undefined ? {} : { min: variable.min }), ...(variable.max === undefined ? {} : { max: variable.max }) }
  }

  private spec (name: string, types?: readonly VariableType[]): Variable {
    const variable = declared(name)
    if (types !== undefined && !types.includes(variable.type)) throw new Error(`${name} is declared as ${variable.type}, read as ${types.join(' or ')}`)
    this.names.add(name)
    return variable
  }
}

/** A declared duration's default in milliseconds (seconds, or a number with s, m, h or d). */
function durationMs (variable: Variable): number {
  const match = /^(\d+)\s*(s|m|h|d)?$/.exec(variable.default ?? '')
  if (match === null) throw new Error(`${variable.name}'s default is no duration`)
  return Number(match[1]) * { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as 's' | 'm' | 'h' | 'd' ?? 's']
}
