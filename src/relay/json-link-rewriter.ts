// Rewrites the links in a JSON answer as it streams through, and checks its structure on the
// way. Every string value (not object keys) is handed to `rewrite` (which returns a replacement or undefined);
// everything else passes byte for byte. The scan works on bytes: UTF-8 never puts '"' or '\'
// inside a multi-byte character, so strings are found without decoding the whole body.
//
// The check is structural, which is what can be afforded on a stream: the body is one object or
// array, brackets balance, only JSON's characters stand outside strings, strings are well formed
// (no raw control characters) and bounded, and nothing follows the closing bracket.

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
  /** Only strings whose raw bytes contain this marker are decoded and offered to `rewrite`. */
  marker: string
  maxStringBytes?: number
}

export class JsonLinkRewriter {
  private readonly closers: number[] = []
  private started = false
  private finished = false
  private inString = false
  /** Object keys are names, never links: they pass as they are. */
  private expectKey = false
  private stringIsKey = false
  private escaped = false
  private pending: Buffer[] = []
  private pendingBytes = 0
  private readonly marker: Buffer
  private readonly maxStringBytes: number

  constructor (private readonly options: JsonLinkRewriterOptions) {
    this.marker = Buffer.from(options.marker)
    this.maxStringBytes = options.maxStringBytes ?? 65_536
  }

  /** The output for one input chunk (possibly empty while a string spans chunks). */
  push (chunk: Buffer): Buffer {
    const out: Buffer[] = []
    let runStart = 0
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i] as number
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false
        } else if (byte === BACKSLASH) {
          this.escaped = true
        } else if (byte === QUOTE) {
          this.pending.push(chunk.subarray(runStart, i))
          out.push(this.closeString())
          runStart = i + 1
        } else if (byte < 0x20) {
          throw new JsonStructureError('a string holds a raw control character')
        }
        continue
      }
      if (byte === QUOTE) {
        if (this.closers.length === 0) throw new JsonStructureError('a string stands outside any object or array')
        out.push(chunk.subarray(runStart, i))
        this.inString = true
        this.stringIsKey = this.expectKey
        this.expectKey = false
        this.pending = []
        this.pendingBytes = 0
        runStart = i + 1
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
      const rest = chunk.subarray(runStart)
      this.pendingBytes += rest.length
      if (this.pendingBytes > this.maxStringBytes) throw new JsonStructureError(`a string is longer than ${this.maxStringBytes} bytes`)
      this.pending.push(rest)
    } else {
      out.push(chunk.subarray(runStart))
    }
    return out.length === 1 ? out[0] as Buffer : Buffer.concat(out)
  }

  /** Called after the last chunk: the answer must have been complete. */
  end (): void {
    if (this.inString || !this.started || !this.finished) throw new JsonStructureError('the answer ends before it is complete')
  }

  private closeString (): Buffer {
    this.inString = false
    const raw = this.pending.length === 1 ? this.pending[0] as Buffer : Buffer.concat(this.pending)
    this.pending = []
    this.pendingBytes = 0
    if (raw.length > this.maxStringBytes) throw new JsonStructureError(`a string is longer than ${this.maxStringBytes} bytes`)
    if (this.stringIsKey || !raw.includes(this.marker)) return quoted(raw)
    let value: string
    try {
      value = JSON.parse(`"${raw.toString('utf8')}"`) as string
    } catch {
      throw new JsonStructureError('a string is not valid JSON')
    }
    const replacement = this.options.rewrite(value)
    return replacement === undefined ? quoted(raw) : Buffer.from(JSON.stringify(replacement))
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
