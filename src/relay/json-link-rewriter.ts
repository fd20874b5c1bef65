// Rewrites the links in a JSON answer as it streams through, and checks its structure on the
// way. Every string value (not object keys) is handed to `rewrite` (which returns a replacement or undefined);
// everything else passes byte for byte. The scan works on bytes: UTF-8 never puts '"' or '\'
// inside a multi-byte character, so strings are found without decoding the whole body.
//
// The check is structural, which is what can be afforded on a stream: the body is one object or
// array, brackets balance, only JSON's characters stand outside strings, strings end and are
// bounded, strings that are rewritten decode, and nothing follows the closing bracket. Inside a
// string the scan only looks for the closing quote and escapes.

export class JsonStructureError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'JsonStructureError'
  }
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
/** Bytes allowed between strings: whitespace, punctuation, and the letters of numbers and literals. */
const OUTSIDE = new Uint8Array(256)
for (const char of ' \t\r\n,:-+.0123456789eEtrufalsn') OUTSIDE[char.charCodeAt(0)] = 1
const CLOSER: Record<number, number> = { 0x7b: 0x7d, 0x5b: 0x5d }

export interface JsonLinkRewriterOptions {
  /** A replacement for a string value, or undefined to keep it. */
  rewrite: (value: string) => string | undefined
  /**
   * The common case, decided on the raw bytes without decoding: a string that starts with `from`
   * and whose rest `isPlainRest` accepts (bytes start to end) has `from` replaced by `to`, and
   * nothing else is copied. It must agree with `rewrite` wherever it applies.
   */
  plainPrefix?: PlainPrefix
  /**
   * The other common case: a string its raw bytes (start to end) show `rewrite` would keep, which
   * passes without decoding. It must agree with `rewrite` wherever it says true.
   */
  keepsPlain?: (bytes: Buffer, start: number, end: number) => boolean
  /** Only strings whose raw bytes contain this marker are decoded and offered to `rewrite`. */
  marker: string | Buffer
  maxStringBytes?: number
}

export interface PlainPrefix {
  from: Buffer
  to: Buffer
  isPlainRest: (bytes: Buffer, start: number, end: number) => boolean
}

export class JsonLinkRewriter {
  private readonly closers: number[] = []
  private started = false
  private finished = false
  private inString = false
  private escaped = false
  /** Object keys are names, never links: they pass as they are. */
  private expectKey = false
  private stringIsKey = false
  /** Where the open string's quote is in the current chunk (-1: it opened in an earlier one). */
  private stringStart = -1
  /** The open string's bytes from earlier chunks, held back until it closes. */
  private pending: Buffer[] = []
  private pendingBytes = 0
  private readonly marker: Buffer
  private readonly maxStringBytes: number

  constructor (private readonly options: JsonLinkRewriterOptions) {
    this.marker = typeof options.marker === 'string' ? Buffer.from(options.marker) : options.marker
    this.maxStringBytes = options.maxStringBytes ?? 65_536
  }

  /**
   * The output for one input chunk (possibly empty while a string spans chunks). Bytes are not
   * copied unless a string is replaced: the output is slices of the input around replacements.
   */
  push (chunk: Buffer): Buffer {
    const out: Buffer[] = []
    let runStart = 0
    let nextMarker = chunk.indexOf(this.marker)
    for (let i = 0; i < chunk.length; i++) {
      if (this.inString) {
        // Straight through the string to its closing quote, stepping over escapes.
        if (this.escaped) {
          this.escaped = false
          continue
        }
        let byte = chunk[i] as number
        while (byte !== QUOTE && byte !== BACKSLASH && ++i < chunk.length) byte = chunk[i] as number
        if (i === chunk.length) break
        if (byte === BACKSLASH) {
          this.escaped = true
          continue
        }
        this.inString = false
        if (this.stringStart < 0) {
          // A string that began in an earlier chunk: it was held back, and goes out now.
          this.pending.push(chunk.subarray(0, i))
          out.push(this.closeHeldString())
          runStart = i + 1
          continue
        }
        if (i - this.stringStart - 1 > this.maxStringBytes) throw new JsonStructureError(`a string is longer than ${this.maxStringBytes} bytes`)
        if (this.stringIsKey || nextMarker < 0) continue
        if (nextMarker < this.stringStart) nextMarker = chunk.indexOf(this.marker, this.stringStart)
        if (nextMarker < 0 || nextMarker > i) continue
        const start = this.stringStart + 1
        if (this.hasPlainPrefix(chunk, start, i)) {
          // Only the prefix changes: what follows it goes out with the next run of the chunk.
          const prefix = this.options.plainPrefix as PlainPrefix
          out.push(chunk.subarray(runStart, start), prefix.to)
          runStart = start + prefix.from.length
        } else if (this.options.keepsPlain?.(chunk, start, i) !== true) {
          const replacement = this.replacementFor(chunk.subarray(start, i))
          if (replacement !== undefined) {
            out.push(chunk.subarray(runStart, this.stringStart), replacement)
            runStart = i + 1
          }
        }
        nextMarker = chunk.indexOf(this.marker, i + 1)
        continue
      }
      const byte = chunk[i] as number
      if (byte === QUOTE) {
        if (this.closers.length === 0) throw new JsonStructureError('a string stands outside any object or array')
        this.inString = true
        this.stringStart = i
        this.stringIsKey = this.expectKey
        this.expectKey = false
      } else if (byte === 0x7b || byte === 0x5b) {
        if (this.finished) throw new JsonStructureError('something follows the end of the answer')
        this.started = true
        this.closers.push(CLOSER[byte] as number)
        this.expectKey = byte === 0x7b
      } else if (byte === 0x2c) {
        if (this.closers.length === 0) throw new JsonStructureError('a comma stands outside any object or array')
        this.expectKey = this.closers[this.closers.length - 1] === 0x7d
      } else if (byte === 0x7d || byte === 0x5d) {
        if (this.closers.pop() !== byte) throw new JsonStructureError('brackets do not balance')
        if (this.closers.length === 0) this.finished = true
      } else if (OUTSIDE[byte] !== 1) {
        throw new JsonStructureError('a character outside JSON\'s syntax')
      } else if (this.closers.length === 0 && !isWhitespace(byte)) {
        throw new JsonStructureError('the answer is not an object or an array')
      }
    }
    if (this.inString) {
      // Hold the open string back (from its quote on) until it closes.
      const held = this.stringStart < 0 ? chunk : chunk.subarray(this.stringStart + 1)
      if (this.stringStart >= 0) out.push(chunk.subarray(runStart, this.stringStart))
      this.pending.push(held)
      this.pendingBytes += held.length
      this.stringStart = -1
      if (this.pendingBytes > this.maxStringBytes) throw new JsonStructureError(`a string is longer than ${this.maxStringBytes} bytes`)
    } else {
      out.push(chunk.subarray(runStart))
    }
    return out.length === 1 ? out[0] as Buffer : Buffer.concat(out)
  }

  /** Called after the last chunk: the answer must have been complete. */
  end (): void {
    if (this.inString || !this.started || !this.finished) throw new JsonStructureError('the answer ends before it is complete')
  }

  private closeHeldString (): Buffer {
    const raw = Buffer.concat(this.pending)
    this.pending = []
    this.pendingBytes = 0
    if (raw.length > this.maxStringBytes) throw new JsonStructureError(`a string is longer than ${this.maxStringBytes} bytes`)
    if (this.stringIsKey || !raw.includes(this.marker)) return quoted(raw)
    if (this.hasPlainPrefix(raw, 0, raw.length)) {
      const prefix = this.options.plainPrefix as PlainPrefix
      return quoted(Buffer.concat([prefix.to, raw.subarray(prefix.from.length)]))
    }
    if (this.options.keepsPlain?.(raw, 0, raw.length) === true) return quoted(raw)
    return this.replacementFor(raw) ?? quoted(raw)
  }

  /** Whether the raw string in bytes start to end takes the plain-prefix path. */
  private hasPlainPrefix (bytes: Buffer, start: number, end: number): boolean {
    const prefix = this.options.plainPrefix
    if (prefix === undefined) return false
    const rest = start + prefix.from.length
    return end > rest && bytes.compare(prefix.from, 0, prefix.from.length, start, rest) === 0 && prefix.isPlainRest(bytes, rest, end)
  }

  /** The string's replacement (quotes included), or undefined to keep it. */
  private replacementFor (raw: Buffer): Buffer | undefined {
    let value: string
    try {
      // Without a backslash the raw bytes are the value.
      value = raw.includes(BACKSLASH) ? JSON.parse(`"${raw.toString('utf8')}"`) as string : raw.toString('utf8')
    } catch {
      throw new JsonStructureError('a string is not valid JSON')
    }
    const replacement = this.options.rewrite(value)
    return replacement === undefined ? undefined : Buffer.from(JSON.stringify(replacement))
  }
}

function quoted (raw: Buffer): Buffer {
  const out = Buffer.allocUnsafe(raw.length + 2)
  out[0] = QUOTE
  raw.copy(out, 1)
  out[raw.length + 1] = QUOTE
  return out
}

function isWhitespace (byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d
}
