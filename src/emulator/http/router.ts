// A tiny router over node:http: exact segments and `:name` parameters, 404 and 405 as JSON, and
// one catch around every handler. Handlers throw EmulatorError for every bad input they can
// name; the catch's 500 exists only for bugs, so no input is meant to reach it.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { EmulatorError, errorBody } from './emulator-error.js'
import { sendError, sendJson } from './responses.js'

export interface RouteContext {
  req: IncomingMessage
  res: ServerResponse
  url: URL
  params: Record<string, string>
}

export interface Route {
  method: string
  /** e.g. `/api/upload/id/:ulid` */
  path: string
  handler: (context: RouteContext) => Promise<void> | void
  /** Name under which faults can be injected into this route. */
  faultEndpoint?: string
}

export interface RouterOptions {
  /** Runs before the handler of a matched route; false when it answered the request itself. */
  beforeHandler?: (route: Route, context: RouteContext) => Promise<boolean>
}

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void

export function createRouter (routes: Route[], options: RouterOptions = {}): RequestHandler {
  const compiled = routes.map((route) => ({ route, segments: splitPath(route.path) }))

  const dispatch = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let url: URL
    try {
      url = new URL(req.url ?? '/', 'http://emulator.invalid')
    } catch {
      throw new EmulatorError(400, 'invalid_request', 'The request target is not a valid URL.')
    }
    const segments = splitPath(url.pathname)
    const allowed: string[] = []
    for (const { route, segments: pattern } of compiled) {
      const params = matchSegments(pattern, segments)
      if (params === undefined) continue
      if (route.method !== req.method) {
        allowed.push(route.method)
        continue
      }
      const context: RouteContext = { req, res, url, params }
      if (options.beforeHandler !== undefined && !(await options.beforeHandler(route, context))) return
      await route.handler(context)
      return
    }
    if (allowed.length > 0) {
      throw new EmulatorError(405, 'method_not_allowed', `${req.method ?? ''} is not allowed on ${url.pathname}; use ${allowed.join(' or ')}.`, {
        headers: { allow: [...new Set(allowed)].join(', ') }
      })
    }
    throw new EmulatorError(404, 'not_found', `There is nothing at ${url.pathname}.`)
  }

  return (req, res) => {
    dispatch(req, res).catch((error: unknown) => {
      if (!req.complete) abandonRequestBody(req, res)
      if (error instanceof EmulatorError) {
        sendError(res, error)
        return
      }
      // A client that hung up mid-request is not the emulator's failure: nothing to answer.
      if (res.destroyed || (req.destroyed && !req.complete)) return
      process.stderr.write(`media emulator: unexpected error on ${req.method ?? ''} ${req.url ?? ''}: ${(error as Error)?.stack ?? String(error)}\n`)
      if (res.headersSent) {
        res.destroy()
        return
      }
      sendJson(res, 500, errorBody('server_error', 'The emulator failed unexpectedly; this is a bug in the emulator.'))
    })
  }
}

/**
 * Answers before the body has arrived (a limit was crossed): stop parsing, discard the rest,
 * and close the connection after the answer so the client stops sending.
 */
export function abandonRequestBody (req: IncomingMessage, res: ServerResponse): void {
  req.unpipe()
  req.resume()
  if (!res.headersSent) res.setHeader('connection', 'close')
}

function splitPath (path: string): string[] {
  return path.split('/').filter((segment) => segment !== '')
}

function matchSegments (pattern: string[], segments: string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined
  const params: Record<string, string> = {}
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i] as string
    const actual = segments[i] as string
    if (expected.startsWith(':')) {
      try {
        params[expected.slice(1)] = decodeURIComponent(actual)
      } catch {
        return undefined
      }
    } else if (expected !== actual) {
      return undefined
    }
  }
  return params
}
