// CORS for the upload origin: browsers post files to it straight from the website's page, so
// it answers preflights and marks every answer (errors included, or the page could not read
// them) with the allowed origin. No credentials: the signed URL is the credential.
import type { IncomingMessage, ServerResponse } from 'node:http'

const allowedHeaders = ['authorization', 'content-type', 'x-requested-with', 'x-csrf']

export function isAllowedOrigin (origin: string, allowed: string[] | undefined): boolean {
  return allowed === undefined || allowed.includes('*') || allowed.includes(origin)
}

/** Sets Access-Control-Allow-Origin when the request's origin may read the answer. */
export function applyCorsHeaders (req: IncomingMessage, res: ServerResponse, allowed: string[] | undefined): void {
  res.setHeader('vary', 'Origin')
  const origin = req.headers.origin
  if (origin === undefined || !isAllowedOrigin(origin, allowed)) return
  res.setHeader('access-control-allow-origin', origin)
}

export function answerPreflight (req: IncomingMessage, res: ServerResponse, allowed: string[] | undefined): void {
  const origin = req.headers.origin
  const headers: Record<string, string> = { vary: 'Origin', 'content-length': '0' }
  if (origin !== undefined && isAllowedOrigin(origin, allowed)) {
    const requested = (req.headers['access-control-request-headers'] ?? '')
      .split(',').map((name) => name.trim().toLowerCase()).filter((name) => /^[a-z0-9-]+$/.test(name))
    headers['access-control-allow-origin'] = origin
    headers['access-control-allow-methods'] = 'POST, OPTIONS'
    headers['access-control-allow-headers'] = [...new Set([...allowedHeaders, ...requested])].join(', ')
    headers['access-control-max-age'] = '600'
  }
  res.writeHead(204, headers)
  res.end()
}
