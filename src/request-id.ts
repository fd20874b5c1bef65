// Request ids (docs/guide/operate.md, "Tracing and request ids"): the X-Request-Id of a proxy in
// TRUST_PROXY is kept, any other request gets one made here. The id names the request in every log
// line (pino's reqId), in its answer, and on every call made for it to the media service and its
// token endpoint, so one grep joins the proxy's log line, media-bff's and the service's. It is
// handed down to those calls as an argument, not through an AsyncLocalStorage: on Node 20 entering
// one puts a hook on every promise of the process, which cost a registration some 14% more CPU.
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { trustedPeer } from './trusted-peer.js'

export const REQUEST_ID_HEADER = 'x-request-id'

/**
 * What a proxy's id may be to be kept: nginx's $request_id (32 hex digits), a UUID, a ULID, base64
 * and the like. Anything else (longer, spaces, control characters, two headers joined by a comma)
 * is replaced, so no client-chosen text reaches a log line unchecked.
 */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:+/=-]{1,128}$/

/**
 * Fastify's genReqId: the id a trusted proxy sent (the connection comes from an address of
 * TRUST_PROXY, as for X-Forwarded-*), else a new random one.
 */
export function requestIdFor (trustProxy: readonly string[]): (request: IncomingMessage) => string {
  const trusted = trustedPeer(trustProxy)
  return (request) => {
    const sent = request.headers[REQUEST_ID_HEADER]
    if (typeof sent === 'string' && isRequestId(sent) && trusted(request.socket.remoteAddress)) return sent
    return randomUUID()
  }
}

export function isRequestId (value: string): boolean {
  return REQUEST_ID_PATTERN.test(value)
}

/** The headers of a call to the service, with the id of the request it is made for, if any. */
export function withRequestId (headers: Record<string, string>, requestId: string | undefined): Record<string, string> {
  if (requestId !== undefined) headers[REQUEST_ID_HEADER] = requestId
  return headers
}
