// The request each scenario fires, as autocannon options, and the figures the report holds the
// comparisons to.
import type { LoadOptions } from './load.js'

/** POST /uploads/register as the website's front-end sends it (to media-bff, or the same to the bare hop). */
export const bffRegister = (bffUrl: string, cookie: string): LoadOptions => ({
  url: `${bffUrl}/uploads/register`,
  method: 'POST',
  headers: { cookie, 'x-csrf': '1', 'content-type': 'application/json' },
  body: '{"folder_id":0}'
})

/**
 * The registration media-bff makes (registrationFields for {"folder_id":0}), sent straight to the
 * emulator: the floor no proxy can reach.
 */
export const directRegister = (baseUrl: string, accessToken: string): LoadOptions => ({
  url: `${baseUrl}/api/upload/id`,
  method: 'POST',
  headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/x-www-form-urlencoded' },
  body: 'folder_id=0&hide_response=true'
})

export const sessionState = (url: string, cookie?: string): LoadOptions => ({
  url: `${url}/auth/session`,
  method: 'GET',
  headers: { 'x-csrf': '1', ...(cookie === undefined ? {} : { cookie }) }
})

/**
 * The relayed call as the website's front-end makes it: its session cookie and X-CSRF. The bare
 * hop gets the same request and ignores both (it holds its own token).
 */
export const bffFolderContents = (bffUrl: string, cookie: string): LoadOptions => ({
  url: `${bffUrl}/api/folders/0/contents`,
  method: 'GET',
  headers: { cookie, 'x-csrf': '1', accept: 'application/json' }
})

/** The same listing straight from the emulator with a Bearer access token. */
export const directFolderContents = (baseUrl: string, accessToken: string): LoadOptions => ({
  url: `${baseUrl}/api/folders/0/contents`,
  method: 'GET',
  headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' }
})

/** Connections of the figures held to targets. */
export const TARGET_CONNECTIONS = 10

/**
 * media-bff against the bare Fastify+undici hop (lib/bare-hop-child.ts), both in front of the
 * stub as cheap as the hop (scenarios/hop.ts), same run, TARGET_CONNECTIONS connections. The hop
 * is the reference: it makes the same upstream call with nothing else, so what is left is
 * media-bff's own cost. In front of the emulator (register.ts, relay.ts) the same shares are
 * reported for information.
 */
export const HOP_TARGETS = {
  /** media-bff's register requests/s over the hop's, in-memory store: at least. */
  registerShare: 0.85,
  /** Milliseconds media-bff adds to the hop's register p50: at most. */
  registerAddedP50Ms: 0.5,
  /** media-bff's relayed GET /api/folders/0/contents requests/s over the hop's, in-memory store: at least. */
  relayShare: 0.85,
  /** The same two on the Redis store (the production path of any deployment of two replicas): at least. */
  redisShare: 0.7,
  /** media-bff's CPU per request over the hop's (its own process only): at most. */
  cpuPerRequestRatio: 2
} as const

/**
 * Production's request logs (LOG_LEVEL=info) against the same media-bff logging warnings only,
 * register and the relay in front of the stub: what they may cost of its requests/s, at most.
 */
export const LOG_TARGETS = { maxThroughputCost: 0.1 } as const

/** GET /auth/session signed in, media-bff's requests/s over a bare Fastify route's (same JSON): at least. */
export const SESSION_TARGETS = { memoryShare: 0.6, redisShare: 0.5 } as const

/**
 * Heap an open live channel holds, at most. Held to media-bff's own share (over a bare Fastify
 * server holding the same channel, measured beside it) and, for information, to the whole.
 */
export const LIVE_CHANNEL_TARGETS = { ownHeapBytes: 3072 } as const

/** The former reference, kept for information: the emulator called directly. */
export const FLOOR_TARGETS = { registerShare: 0.85, registerAddedP50Ms: 1 } as const
