// Fault injection: makes named endpoints slow, failing, silent or nonsensical on demand, so the
// BFF's timeouts, retries and error mapping can be tested against a real socket. The HTTP hook
// and RunningEmulator.injectFault both go through parseFault and the same FaultTable. Faults
// act in an onRequest hook (faultHook), before the route reads any of the body.
import type { ServerResponse } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { EmulatorError, errorBody } from './http/emulator-error.js'
import { sendJson } from './http/replies.js'
import { abandonUnreadBody } from './http/requests.js'

/** `library` covers every folder, file, share and oEmbed call (library/). */
export const faultEndpoints = ['token', 'authorize', 'user_info', 'upload_id', 'finish', 'upload_direct', 'library', '*'] as const

export type FaultEndpoint = typeof faultEndpoints[number]

export interface FaultSpec {
  endpoint: FaultEndpoint
  /** Every call waits this long, until the faults are cleared. */
  delayMs?: number
  /** The next failCount calls answer this status with a JSON error body. */
  failStatus?: number
  /** How many calls fail (failStatus, drop or malformed). Default 1. */
  failCount?: number
  /** The next failCount calls get no answer: the socket is destroyed. */
  drop?: boolean
  /** The next failCount calls get 200 with a body that is not valid JSON. */
  malformed?: boolean
}

interface ActiveFault {
  spec: FaultSpec
  remaining: number
}

export interface FaultTable {
  inject: (spec: FaultSpec) => void
  clear: () => void
  list: () => Array<FaultSpec & { remaining: number }>
  /** Applies any fault for the endpoint; false when the fault answered (or dropped) the call. */
  apply: (endpoint: FaultEndpoint, request: FastifyRequest, reply: FastifyReply) => Promise<boolean>
}

const maxDelayMs = 120_000
/** Endpoints that take an access token; their injected 401 is the API's own (invalid_token). */
const apiEndpoints = new Set<string>(['user_info', 'upload_id', 'finish', 'library'])

export function parseFault (input: unknown): FaultSpec {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw faultError('The fault must be a JSON object.')
  const raw = input as Record<string, unknown>
  const known = new Set(['endpoint', 'delayMs', 'failStatus', 'failCount', 'drop', 'malformed'])
  const unknown = Object.keys(raw).filter((key) => !known.has(key))
  if (unknown.length > 0) throw faultError(`Unknown fault field(s): ${unknown.join(', ')}.`)
  if (typeof raw.endpoint !== 'string' || !(faultEndpoints as readonly string[]).includes(raw.endpoint)) {
    throw faultError(`endpoint must be one of ${faultEndpoints.join(', ')}.`)
  }
  const spec: FaultSpec = { endpoint: raw.endpoint as FaultEndpoint }
  const integer = (name: string, min: number, max: number): number | undefined => {
    const value = raw[name]
    if (value === undefined) return undefined
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) throw faultError(`${name} must be an integer from ${min} to ${max}.`)
    return value
  }
  const flag = (name: string): boolean | undefined => {
    const value = raw[name]
    if (value === undefined) return undefined
    if (typeof value !== 'boolean') throw faultError(`${name} must be true or false.`)
    return value
  }
  const delayMs = integer('delayMs', 0, maxDelayMs)
  const failStatus = integer('failStatus', 400, 599)
  const failCount = integer('failCount', 1, 1_000_000)
  const drop = flag('drop')
  const malformed = flag('malformed')
  if (delayMs !== undefined) spec.delayMs = delayMs
  if (failStatus !== undefined) spec.failStatus = failStatus
  if (failCount !== undefined) spec.failCount = failCount
  if (drop === true) spec.drop = true
  if (malformed === true) spec.malformed = true
  const kinds = [spec.failStatus !== undefined, spec.drop === true, spec.malformed === true].filter(Boolean).length
  if (kinds > 1) throw faultError('Choose one of failStatus, drop and malformed per fault.')
  if (kinds === 0 && spec.delayMs === undefined) throw faultError('A fault needs delayMs, failStatus, drop or malformed.')
  if (kinds === 0 && spec.failCount !== undefined) throw faultError('failCount needs failStatus, drop or malformed.')
  return spec
}

export function createFaultTable (): FaultTable {
  // Delays and failures are kept apart so a delay and a failure for one endpoint can be combined
  // by two calls; a new fault of the same kind for the same endpoint replaces the old one.
  const delays = new Map<string, number>()
  const failures = new Map<string, ActiveFault>()

  const failing = (endpoint: string): ActiveFault | undefined => {
    for (const key of [endpoint, '*']) {
      const fault = failures.get(key)
      if (fault !== undefined && fault.remaining > 0) return fault
    }
    return undefined
  }

  return {
    inject (spec) {
      if (spec.delayMs !== undefined) delays.set(spec.endpoint, spec.delayMs)
      if (spec.failStatus !== undefined || spec.drop === true || spec.malformed === true) {
        failures.set(spec.endpoint, { spec: { ...spec }, remaining: spec.failCount ?? 1 })
      }
    },
    clear () {
      delays.clear()
      failures.clear()
    },
    list () {
      const listed: Array<FaultSpec & { remaining: number }> = []
      for (const [endpoint, delayMs] of delays) listed.push({ endpoint: endpoint as FaultEndpoint, delayMs, remaining: 0 })
      for (const fault of failures.values()) {
        const { delayMs: _ignored, ...failure } = fault.spec
        listed.push({ ...failure, remaining: fault.remaining })
      }
      return listed
    },
    async apply (endpoint, request, reply) {
      const delayMs = delays.get(endpoint) ?? delays.get('*')
      if (delayMs !== undefined && delayMs > 0) await delayUnlessClosed(delayMs, reply.raw)
      if (reply.raw.destroyed) {
        // The client (or stop()) closed the connection while it waited: nobody to answer.
        reply.hijack()
        return false
      }
      const fault = failing(endpoint)
      if (fault === undefined) return true
      fault.remaining -= 1
      if (fault.spec.drop === true) {
        reply.hijack()
        request.raw.socket.destroy()
        return false
      }
      abandonUnreadBody(request, reply)
      if (fault.spec.malformed === true) {
        reply.code(200).header('content-type', 'application/json; charset=utf-8').send('{"status": "success", "injected_fault": tr')
      } else {
        const status = fault.spec.failStatus ?? 500
        if (status === 401 && apiEndpoints.has(endpoint)) {
          // The one 401 the API gives (api/authenticate.ts): the token refused, as its OAuth library says it.
          sendJson(reply, 401, errorBody('invalid_token', `Fault injected by the emulator: ${endpoint} refuses the access token.`, 'Please sign in again.'), {
            'www-authenticate': 'Bearer realm="media-emulator", error="invalid_token"'
          })
        } else {
          sendJson(reply, status, errorBody('injected_fault', `Fault injected by the emulator: ${endpoint} answers ${status}.`, 'The media service is having trouble; please try again.'))
        }
      }
      return false
    }
  }
}

/** The route option `onRequest: faultHook(context.faults, 'token')` makes a route faultable (or, as a scope hook, a scope). */
export function faultHook (faults: FaultTable, endpoint: FaultEndpoint): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  return async (request, reply) => {
    // Once answered or dropped, Fastify runs nothing further for this request.
    await faults.apply(endpoint, request, reply)
  }
}

function faultError (description: string): EmulatorError {
  return new EmulatorError(400, 'invalid_request', description)
}

/** Waits, but gives up as soon as the client (or stop()) closes the connection. */
async function delayUnlessClosed (ms: number, res: ServerResponse): Promise<void> {
  await new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer)
      res.off('close', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    res.on('close', done)
  })
}
