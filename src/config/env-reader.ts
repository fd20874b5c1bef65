// Small typed readers for environment variables. Each reader records a problem naming the
// variable instead of throwing, so one start-up run reports every bad variable at once.
import { readFileSync } from 'node:fs'

export type Env = Record<string, string | undefined>

export class EnvReader {
  readonly problems: string[] = []
  /** What works but is likely a mistake: logged at start, never refused (production refuses instead). */
  readonly warnings: string[] = []
  /** Values read from the files NAME_FILE names (readFromFiles); they stand for NAME. */
  private readonly fromFiles = new Map<string, string>()
  /** Variables whose NAME_FILE could not be used: that problem is theirs, not "is required" too. */
  private readonly fileFailed = new Set<string>()
  /** Every name asked for, set or not: the names this reader knows (src/config/names.ts). */
  readonly names = new Set<string>()
  constructor (private readonly env: Env) {}

  /** The trimmed value, or undefined when unset or blank. */
  raw (name: string): string | undefined {
    this.names.add(name)
    const value = (this.fromFiles.get(name) ?? this.env[name])?.trim()
    return value === undefined || value === '' ? undefined : value
  }

  warn (name: string, message: string): void {
    this.warnings.push(`${name}: ${message}`)
  }

  problem (name: string, message: string): void {
    if (this.fileFailed.has(name)) return
    this.problems.push(`${name}: ${message}`)
  }

  required (name: string, hint: string): string {
    const value = this.raw(name)
    if (value === undefined) {
      this.problem(name, `is required (${hint})`)
      return ''
    }
    return value
  }

  string (name: string, fallback: string): string {
    return this.raw(name) ?? fallback
  }

  list (name: string, fallback: string[] = []): string[] {
    const value = this.raw(name)
    if (value === undefined) return fallback
    return value.split(',').map((item) => item.trim()).filter((item) => item !== '')
  }

  integer (name: string, fallback: number, { min = 0, max = Number.MAX_SAFE_INTEGER } = {}): number {
    const value = this.raw(name)
    if (value === undefined) return fallback
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      this.problem(name, `must be a whole number from ${min} to ${max}, got "${value}"`)
      return fallback
    }
    return Number(value)
  }

  optionalInteger (name: string, { min = 0, max = Number.MAX_SAFE_INTEGER } = {}): number | undefined {
    if (this.raw(name) === undefined) return undefined
    return this.integer(name, 0, { min, max })
  }

  boolean (name: string, fallback: boolean): boolean {
    const value = this.raw(name)?.toLowerCase()
    if (value === undefined) return fallback
    if (['1', 'true', 'on', 'yes'].includes(value)) return true
    if (['0', 'false', 'off', 'no'].includes(value)) return false
    this.problem(name, `must be on or off, got "${value}"`)
    return fallback
  }

  /** A duration: seconds, or a number with a unit (s, m, h, d). Returns milliseconds. */
  duration (name: string, fallbackMs: number, bounds: { minMs?: number, maxMs?: number } = {}): number {
    const value = this.raw(name)
    if (value === undefined) return fallbackMs
    const match = /^(\d+)\s*(s|m|h|d)?$/.exec(value)
    // Zero only where the declaration says so (min: 0): it turns something off.
    if (match === null || (Number(match[1]) === 0 && bounds.minMs !== 0)) {
      this.problem(name, `must be a positive duration such as 900, 30m, 8h or 7d, got "${value}"`)
      return fallbackMs
    }
    const unitMs = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as 's' | 'm' | 'h' | 'd' ?? 's']
    const ms = Number(match[1]) * unitMs
    const { minMs = 0, maxMs = Infinity } = bounds
    if (ms < minMs || ms > maxMs) {
      this.problem(name, `must be between ${minMs / 1000} and ${maxMs / 1000} seconds, got "${value}"`)
      return fallbackMs
    }
    return ms
  }

  /**
   * NAME_FILE, for each of `names`: NAME's value is read from that file, as Docker and Kubernetes
   * mount secrets (a trailing newline dropped), so the secret stays out of the environment that
   * every child process inherits and `/proc/<pid>/environ` shows. Both set would leave it unclear
   * which one counts, so that is refused. Messages name the variable and the file, never the
   * file's content.
   */
  readFromFiles (names: readonly string[]): void {
    for (const name of names) {
      const file = this.raw(`${name}_FILE`)
      if (file === undefined) continue
      if (this.raw(name) !== undefined) {
        this.problem(name, `is set and so is ${name}_FILE; set only one of them`)
        continue
      }
      const failed = (why: string): void => {
        this.problem(`${name}_FILE`, `${file} ${why}`)
        this.fileFailed.add(name)
      }
      let text: string
      try {
        text = readFileSync(file, 'utf8')
      } catch (error) {
        failed(`cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`)
        continue
      }
      const value = text.replace(/\r?\n$/, '')
      if (value.trim() === '') failed('is empty')
      // Lines would become part of one value (a comma list is split on commas only).
      else if (/[\r\n]/.test(value.trim())) failed('holds more than one line; write the value on one line (several values as a comma list)')
      else this.fromFiles.set(name, value)
    }
  }

  /**
   * A value that still holds a shell command, `$(...)`, `${...}` or backquotes: pasted into a
   * `.env` (which is not a shell) or an orchestrator's variables, the command is never run and
   * the literal text, the same for everyone who copied it, becomes the secret.
   */
  refuseUnexpanded (names: readonly string[]): void {
    for (const name of names) {
      const value = this.raw(name)
      if (value !== undefined && /\$\(|\$\{|`/.test(value)) {
        this.problem(name, 'holds a shell command that was never run ($(...), $' + '{...} or backquotes): a .env file is not a shell; run the command and paste what it prints')
      }
    }
  }

  /** An absolute http(s) URL without query or fragment, returned without a trailing slash. */
  url (name: string, value: string | undefined): string | undefined {
    if (value === undefined) return undefined
    let url: URL
    try {
      url = new URL(value)
    } catch {
      this.problem(name, `must be an absolute URL, got "${value}"`)
      return undefined
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      this.problem(name, `must be an http or https URL, got "${value}"`)
      return undefined
    }
    if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
      this.problem(name, 'must not carry a query, fragment or credentials')
      return undefined
    }
    return url.href.replace(/\/+$/, '')
  }
}
