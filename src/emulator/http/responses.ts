// Writers for the three kinds of answer (JSON, HTML, redirect). They ignore a response that is
// already gone, because a client may hang up at any moment and that is not the emulator's error.
import type { ServerResponse } from 'node:http'
import type { EmulatorError } from './emulator-error.js'

export function sendJson (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
    ...headers
  })
  res.end(text)
}

export function sendError (res: ServerResponse, error: EmulatorError): void {
  sendJson(res, error.status, error.toBody(), error.headers)
}

export function sendHtml (res: ServerResponse, status: number, html: string): void {
  if (res.headersSent || res.destroyed) return
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': String(Buffer.byteLength(html)),
    'cache-control': 'no-store',
    // The page runs no script and must not be framed (clickjacking of the consent buttons).
    // form-action is left out on purpose: browsers apply it to the redirect that follows the post.
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer'
  })
  res.end(html)
}

export function sendRedirect (res: ServerResponse, location: string): void {
  if (res.headersSent || res.destroyed) return
  res.writeHead(302, { location, 'cache-control': 'no-store', 'content-length': '0' })
  res.end()
}

/** Escapes text for HTML element content and double-quoted attributes. */
export function escapeHtml (value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
}
