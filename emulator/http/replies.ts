// Writers for the three kinds of answer (JSON, HTML, redirect). Every answer is no-store: tokens,
// signed upload URLs and consent pages must never be served from a cache.
import type { FastifyReply } from 'fastify'
import type { EmulatorError } from './emulator-error.js'

export function sendJson (reply: FastifyReply, status: number, body: unknown, headers: Record<string, string> = {}): FastifyReply {
  return reply.code(status).headers({ 'cache-control': 'no-store', ...headers }).send(body)
}

export function sendError (reply: FastifyReply, error: EmulatorError): FastifyReply {
  return sendJson(reply, error.status, error.toBody(), error.headers)
}

export function sendHtml (reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply.code(status).headers({
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    // The page runs no script and must not be framed (clickjacking of the consent buttons).
    // form-action is left out on purpose: browsers apply it to the redirect that follows the post.
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer'
  }).send(html)
}

export function sendRedirect (reply: FastifyReply, location: string): FastifyReply {
  return reply.header('cache-control', 'no-store').redirect(location, 302)
}
