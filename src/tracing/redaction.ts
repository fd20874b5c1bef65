// The last look at every span before it is exported (src/tracing/sdk.ts): whatever the
// instrumentations or a future change put in a span, no token, code, cookie, secret or signature
// leaves the process. The instrumentations are set up to record none (no headers, paths without
// their query); this is the defence behind that:
//   - an attribute named for a secret (authorization, cookie, set-cookie, token, code, state,
//     sig, signature, password, secret...) keeps its name, its value is replaced;
//   - every query string's values, in any text (a URL, an error's message), are replaced, the
//     names kept: the callback's code and state, the upload URL's signature;
//   - Bearer and Basic credentials, and the configured secrets themselves wherever they appear.
import type { Attributes, AttributeValue } from '@opentelemetry/api'
import type { ReadableSpan } from '@opentelemetry/sdk-trace'

export const REDACTED = '[redacted]'

const SECRET_NAME = /(^|[.-])(code|state|sig|signature|token|access_token|refresh_token|id_token|code_verifier|x-csrf)$|authorization|cookie|secret|password|credential/i
/** A query's parameter and its value, after ? or &. */
const QUERY_VALUE = /([?&][^=&#\s?]{1,256}=)[^&#\s]*/g
const CREDENTIALS = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi
/** Only text with one of these can hold a query or a credential (the secrets are checked apart). */
const WORTH_A_LOOK = /[?&]|bearer|basic/i

export class Redactor {
  /** The configured secrets (and the parts of comma lists), longest first: 16+ characters only. */
  private readonly secrets: string[]

  constructor (secrets: ReadonlyArray<string | undefined>) {
    this.secrets = [...new Set(secrets.filter((secret): secret is string => secret !== undefined && secret.length >= 16))].sort((a, b) => b.length - a.length)
  }

  /** The text with every query value, credential and configured secret replaced. */
  text (value: string): string {
    let result = value
    if (WORTH_A_LOOK.test(result)) result = result.replace(QUERY_VALUE, `$1${REDACTED}`).replace(CREDENTIALS, `$1 ${REDACTED}`)
    for (const secret of this.secrets) if (result.includes(secret)) result = result.replaceAll(secret, REDACTED)
    return result
  }

  /** The attributes with secrets replaced; the same object when nothing was (the usual case). */
  attributes (attributes: Attributes | undefined): Attributes | undefined {
    if (attributes === undefined) return undefined
    let changed: Attributes | undefined
    for (const [name, value] of Object.entries(attributes)) {
      const cleaned = SECRET_NAME.test(name) && value !== undefined ? REDACTED : this.value(name, value)
      if (cleaned === value) continue
      changed ??= { ...attributes }
      changed[name] = cleaned
    }
    return changed ?? attributes
  }

  /**
   * The span as it may be exported: the same object when nothing had to go, else a view of it
   * (its prototype is the span, so its context and timings are the span's own) with the cleaned
   * name, attributes, events, links and status.
   */
  span (span: ReadableSpan): ReadableSpan {
    const name = this.text(span.name)
    const attributes = this.attributes(span.attributes)
    const events = same(span.events, span.events.map((event) => {
      const [eventName, eventAttributes] = [this.text(event.name), this.attributes(event.attributes)]
      return eventName === event.name && eventAttributes === event.attributes ? event : { ...event, name: eventName, attributes: eventAttributes }
    }))
    const links = same(span.links, span.links.map((link) => {
      const linkAttributes = this.attributes(link.attributes)
      return linkAttributes === link.attributes ? link : { ...link, attributes: linkAttributes }
    }))
    const message = span.status.message === undefined ? undefined : this.text(span.status.message)
    if (name === span.name && attributes === span.attributes && events === span.events && links === span.links && message === span.status.message) return span
    return Object.assign(Object.create(span) as ReadableSpan, { name, attributes, events, links, status: { ...span.status, message } })
  }

  private value (name: string, value: AttributeValue | undefined): AttributeValue | undefined {
    // url.query is the query alone, with or without its "?".
    if (typeof value === 'string' && name === 'url.query' && !value.startsWith('?')) return this.text(`?${value}`).slice(1)
    if (typeof value === 'string') return this.text(value)
    if (!Array.isArray(value)) return value
    const cleaned = value.map((item) => typeof item === 'string' ? this.text(item) : item)
    return cleaned.some((item, i) => item !== value[i]) ? cleaned as AttributeValue : value
  }
}

/** `original` when every item of `cleaned` is its own, else `cleaned`. */
function same<T> (original: T[], cleaned: T[]): T[] {
  return cleaned.every((item, i) => item === original[i]) ? original : cleaned
}
