// A real OTLP/HTTP trace receiver on loopback, as a collector's port 4318 is: POST /v1/traces in
// protobuf (application/x-protobuf) or JSON (application/json), answered 200 with an empty
// ExportTraceServiceResponse. Both encodings are read into the same plain spans, so a test's
// assertions hold whichever protocol media-bff was told to use. Protobuf is read by the wire
// format's rules with the field numbers of opentelemetry/proto/trace/v1/trace.proto and
// common/v1/common.proto (only what a span export carries).
import { once } from 'node:events'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gunzipSync } from 'node:zlib'

export type AttributeValue = string | number | boolean | null | AttributeValue[] | { [key: string]: AttributeValue }

export interface ReceivedSpan {
  traceId: string
  spanId: string
  /** '' for a root span. */
  parentSpanId: string
  name: string
  /** 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number
  attributes: Record<string, AttributeValue>
  events: Array<{ name: string, attributes: Record<string, AttributeValue> }>
  links: Array<{ traceId: string, spanId: string, attributes: Record<string, AttributeValue> }>
  status: { code: number, message: string }
  resource: Record<string, AttributeValue>
  scope: string
}

export interface OtlpReceiver {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it (the exporter adds /v1/traces). */
  url: string
  spans: () => ReceivedSpan[]
  /** The content type of each export received, in order. */
  contentTypes: () => string[]
  /** Resolves with the spans once `done` accepts them; rejects after timeoutMs. */
  waitFor: (done: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number) => Promise<ReceivedSpan[]>
  clear: () => void
  close: () => Promise<void>
}

export async function startOtlpReceiver (): Promise<OtlpReceiver> {
  let spans: ReceivedSpan[] = []
  let types: string[] = []
  const server = createServer((request, response) => {
    read(request).then((body) => {
      const type = String(request.headers['content-type'] ?? '').split(';')[0]?.trim() ?? ''
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end()
        return
      }
      const json = type === 'application/json'
      spans.push(...(json ? fromJson(JSON.parse(body.toString('utf8'))) : fromProtobuf(body)))
      types.push(type)
      response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : '')
    }).catch((error: unknown) => {
      response.writeHead(400, { 'content-type': 'text/plain' }).end(String(error))
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...spans],
    contentTypes: () => [...types],
    waitFor: async (done, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs
      while (!done(spans)) {
        if (Date.now() > deadline) throw new Error(`the OTLP receiver did not get the spans expected within ${timeoutMs} ms; it has: ${spans.map((span) => span.name).join(', ')}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      return [...spans]
    },
    clear: () => {
      spans = []
      types = []
    },
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  }
}

async function read (request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  const body = Buffer.concat(chunks)
  return request.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body
}

// --- OTLP/JSON (the protobuf messages in proto3 JSON, ids in hex) -----------------------------

interface JsonKeyValue { key: string, value?: JsonAnyValue }
interface JsonAnyValue { stringValue?: string, boolValue?: boolean, intValue?: string | number, doubleValue?: number, arrayValue?: { values?: JsonAnyValue[] }, kvlistValue?: { values?: JsonKeyValue[] }, bytesValue?: string }

function fromJson (body: { resourceSpans?: Array<{ resource?: { attributes?: JsonKeyValue[] }, scopeSpans?: Array<{ scope?: { name?: string }, spans?: any[] }> }> }): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = jsonAttributes(resourceSpans.resource?.attributes)
    return (resourceSpans.scopeSpans ?? []).flatMap((scopeSpans) => (scopeSpans.spans ?? []).map((span) => ({
      traceId: String(span.traceId ?? ''),
      spanId: String(span.spanId ?? ''),
      parentSpanId: String(span.parentSpanId ?? ''),
      name: String(span.name ?? ''),
      kind: Number(span.kind ?? 0),
      attributes: jsonAttributes(span.attributes),
      events: (span.events ?? []).map((event: { name?: string, attributes?: JsonKeyValue[] }) => ({ name: event.name ?? '', attributes: jsonAttributes(event.attributes) })),
      links: (span.links ?? []).map((link: { traceId?: string, spanId?: string, attributes?: JsonKeyValue[] }) => ({ traceId: link.traceId ?? '', spanId: link.spanId ?? '', attributes: jsonAttributes(link.attributes) })),
      status: { code: Number(span.status?.code ?? 0), message: String(span.status?.message ?? '') },
      resource,
      scope: scopeSpans.scope?.name ?? ''
    })))
  })
}

function jsonAttributes (list: JsonKeyValue[] | undefined): Record<string, AttributeValue> {
  return Object.fromEntries((list ?? []).map((item) => [item.key, jsonValue(item.value)]))
}

function jsonValue (value: JsonAnyValue | undefined): AttributeValue {
  if (value === undefined) return null
  if (value.stringValue !== undefined) return value.stringValue
  if (value.boolValue !== undefined) return value.boolValue
  if (value.intValue !== undefined) return Number(value.intValue)
  if (value.doubleValue !== undefined) return value.doubleValue
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(jsonValue)
  if (value.kvlistValue !== undefined) return jsonAttributes(value.kvlistValue.values)
  if (value.bytesValue !== undefined) return value.bytesValue
  return null
}

// --- OTLP/protobuf --------------------------------------------------------------------------

type Field = { number: number, wireType: 0, value: bigint } | { number: number, wireType: 1 | 5, value: Buffer } | { number: number, wireType: 2, value: Buffer }

/** The fields of one message, in order (repeated fields appear once per item). */
function fieldsOf (buffer: Buffer): Field[] {
  const fields: Field[] = []
  let at = 0
  const varint = (): bigint => {
    let result = 0n
    for (let shift = 0n; ; shift += 7n) {
      if (at >= buffer.length) throw new Error('a varint runs past the end of the message')
      const byte = buffer[at++] as number
      result |= BigInt(byte & 0x7f) << shift
      if ((byte & 0x80) === 0) return result
    }
  }
  while (at < buffer.length) {
    const tag = Number(varint())
    const number = tag >>> 3
    const wireType = tag & 7
    if (wireType === 0) fields.push({ number, wireType, value: varint() })
    else if (wireType === 1 || wireType === 5) {
      const size = wireType === 1 ? 8 : 4
      fields.push({ number, wireType, value: buffer.subarray(at, at + size) })
      at += size
    } else if (wireType === 2) {
      const length = Number(varint())
      fields.push({ number, wireType, value: buffer.subarray(at, at + length) })
      at += length
    } else {
      throw new Error(`wire type ${wireType} is not used by OTLP`)
    }
  }
  return fields
}

const bytesOf = (fields: Field[], number: number): Buffer[] => fields.filter((field) => field.number === number && field.wireType === 2).map((field) => field.value as Buffer)
const firstBytes = (fields: Field[], number: number): Buffer => bytesOf(fields, number)[0] ?? Buffer.alloc(0)
const text = (fields: Field[], number: number): string => firstBytes(fields, number).toString('utf8')
const hex = (fields: Field[], number: number): string => firstBytes(fields, number).toString('hex')
const integer = (fields: Field[], number: number): number => Number(fields.find((field) => field.number === number && field.wireType === 0)?.value ?? 0n)

function fromProtobuf (body: Buffer): ReceivedSpan[] {
  // ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1 }
  return bytesOf(fieldsOf(body), 1).flatMap((resourceSpansBytes) => {
    // ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2 }
    const resourceSpans = fieldsOf(resourceSpansBytes)
    const resource = protoAttributes(fieldsOf(firstBytes(resourceSpans, 1)), 1)
    return bytesOf(resourceSpans, 2).flatMap((scopeSpansBytes) => {
      // ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2 }
      const scopeSpans = fieldsOf(scopeSpansBytes)
      const scope = text(fieldsOf(firstBytes(scopeSpans, 1)), 1)
      return bytesOf(scopeSpans, 2).map((spanBytes) => {
        const span = fieldsOf(spanBytes)
        const status = fieldsOf(firstBytes(span, 15))
        return {
          traceId: hex(span, 1),
          spanId: hex(span, 2),
          parentSpanId: hex(span, 4),
          name: text(span, 5),
          kind: integer(span, 6),
          attributes: protoAttributes(span, 9),
          // Event { name = 2; attributes = 3 }, Link { trace_id = 1; span_id = 2; attributes = 4 }
          events: bytesOf(span, 11).map((eventBytes) => {
            const event = fieldsOf(eventBytes)
            return { name: text(event, 2), attributes: protoAttributes(event, 3) }
          }),
          links: bytesOf(span, 13).map((linkBytes) => {
            const link = fieldsOf(linkBytes)
            return { traceId: hex(link, 1), spanId: hex(link, 2), attributes: protoAttributes(link, 4) }
          }),
          // Status { message = 2; code = 3 }
          status: { code: integer(status, 3), message: text(status, 2) },
          resource,
          scope
        }
      })
    })
  })
}

/** The KeyValue list at field `number`: KeyValue { key = 1; AnyValue value = 2 }. */
function protoAttributes (fields: Field[], number: number): Record<string, AttributeValue> {
  return Object.fromEntries(bytesOf(fields, number).map((bytes) => {
    const keyValue = fieldsOf(bytes)
    return [text(keyValue, 1), protoValue(fieldsOf(firstBytes(keyValue, 2)))]
  }))
}

/** AnyValue { string = 1; bool = 2; int = 3; double = 4; ArrayValue array = 5; KeyValueList kvlist = 6; bytes = 7 } */
function protoValue (fields: Field[]): AttributeValue {
  const field = fields[0]
  if (field === undefined) return null
  switch (field.number) {
    case 1: return (field.value as Buffer).toString('utf8')
    case 2: return field.value !== 0n
    case 3: return Number(BigInt.asIntN(64, field.value as bigint))
    case 4: return (field.value as Buffer).readDoubleLE(0)
    case 5: return bytesOf(fieldsOf(field.value as Buffer), 1).map((item) => protoValue(fieldsOf(item)))
    case 6: return protoAttributes(fieldsOf(field.value as Buffer), 1)
    case 7: return (field.value as Buffer).toString('base64')
    default: return null
  }
}
