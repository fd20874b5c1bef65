// Starts the processes a scenario needs: the emulator, media-bff instances and the bare Fastify
// comparisons (a route returning fixed JSON; a bare hop to the emulator), each in its own child
// (child.ts), wired the way a deployment wires them.
import { randomBytes } from 'node:crypto'
import { freePort } from '../../test/helpers/ports.js'
import { TEST_SESSION_SECRET } from '../../test/helpers/bff.js'
import type { EmulatorOptions } from '../../emulator/index.js'
import { startChild, type BenchChild } from './child.js'
import { benchUsers } from './sign-in.js'

export interface EmulatorInfo {
  baseUrl: string
  uploadOrigin: string
  clientId: string
  clientSecret: string
  users: Array<{ name: string, privateToken: string, scopes: string[] }>
}

export interface EmulatorProcess extends EmulatorInfo {
  child: BenchChild
  counters: () => Promise<{ tokenGrants: { authorization_code: number, refresh_token: number }, refreshReuseDetections: number, registrations: number }>
  configure: (changes: { accessTokenTtl?: number, redirectUri?: string }) => Promise<void>
  /** Access tokens issued so far, oldest first. */
  accessTokens: () => Promise<Array<{ token: string, user: string, scope: string }>>
}

export interface BffStack {
  emulator: EmulatorProcess
  /** The first media-bff instance; its URL is PUBLIC_URL. */
  bff: ServerProcess
  /** Instances added with addInstance, sharing bff's environment (so its store must be Redis). */
  extra: ServerProcess[]
  env: Record<string, string>
  /**
   * Another instance with the same secrets, keys, Redis and prefix, behind the same PUBLIC_URL;
   * `changes` to its environment make it differ in nothing else (tracing on, say).
   */
  addInstance: (changes?: Record<string, string>) => Promise<ServerProcess>
  /** Empties the emulator (see restartEmulator); every grant media-bff holds is dead after it. */
  restartEmulator: () => Promise<void>
  stop: () => Promise<void>
}

export interface ServerProcess {
  child: BenchChild
  url: string
}

/**
 * Node flags for servers under test (--profile adds the CPU profiler), the Node they run on, and
 * whether media-bff logs as production does (its own logger on standard output, read from a pipe).
 */
export interface ServerFlags { nodeFlags?: string[], execPath?: string, logs?: boolean }

export async function startEmulatorProcess (options: EmulatorOptions, flags: ServerFlags = {}): Promise<EmulatorProcess> {
  const child = startChild('./emulator-child.ts', flags.nodeFlags)
  return emulatorProcess(child, await child.call<EmulatorInfo>('start', { options }))
}

/** The same emulator process, emptied: no tokens, no registrations, same ports. */
export async function restartEmulator (emulator: EmulatorProcess): Promise<EmulatorProcess> {
  return emulatorProcess(emulator.child, await emulator.child.call<EmulatorInfo>('restart'))
}

function emulatorProcess (child: BenchChild, info: EmulatorInfo): EmulatorProcess {
  const hook = async (path: string, body?: unknown): Promise<any> => {
    const response = await fetch(`${info.baseUrl}/__emulator/${path}`, body === undefined
      ? {}
      : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    if (!response.ok) throw new Error(`emulator ${path} answered ${response.status}`)
    return await response.json()
  }
  return {
    ...info,
    child,
    counters: async () => await hook('counters'),
    configure: async (changes) => { await hook('config', changes) },
    accessTokens: async () => (await hook('tokens')).access_tokens
  }
}

/** One TOKEN_KEYS value per benchmark run; instances that share a store must share it. */
export const benchTokenKeys = (): string => `bench:${randomBytes(32).toString('base64')}`

/** The environment of a media-bff instance in front of `emulator`, tuned for measuring. */
export function bffEnv (emulator: EmulatorInfo, publicUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PUBLIC_URL: publicUrl,
    MEDIA_BASE_URL: emulator.baseUrl,
    OAUTH_CLIENT_ID: emulator.clientId,
    OAUTH_CLIENT_SECRET: emulator.clientSecret,
    OAUTH_SCOPES: 'basic user.info upload',
    SESSION_SECRETS: TEST_SESSION_SECRET,
    TOKEN_KEYS: benchTokenKeys(),
    LOG_LEVEL: 'silent',
    // The limits exist to stop abuse; a benchmark that hit them would measure 429s.
    RATE_LIMIT_REGISTER_PER_MINUTE: '100000000',
    RATE_LIMIT_FINISH_PER_MINUTE: '100000000',
    RATE_LIMIT_LOGIN_PER_MINUTE: '100000000',
    RATE_LIMIT_API_PER_MINUTE: '100000000',
    RELAY_MAX_IN_FLIGHT_PER_USER: '10000',
    ...extra
  }
}

export async function startBffProcess (env: Record<string, string>, port?: number, flags: ServerFlags = {}): Promise<ServerProcess> {
  const child = startChild('./bff-child.ts', flags.nodeFlags, flags.execPath, { readOutput: flags.logs === true })
  const { url } = await child.call<{ url: string }>('start', { mode: 'bff', env, port: port ?? await freePort(), logs: flags.logs === true })
  return { child, url }
}

export async function startBareProcess (body: unknown, live: { eventHead: Record<string, string>, firstEvent: string } | undefined = undefined, flags: ServerFlags = {}): Promise<ServerProcess> {
  const child = startChild('./bff-child.ts', flags.nodeFlags, flags.execPath)
  const { url } = await child.call<{ url: string }>('start', { mode: 'bare', body, ...live, port: await freePort() })
  return { child, url }
}

/** An OTLP/HTTP receiver that discards what it gets (otlp-sink-child.ts), for traced instances. */
export async function startOtlpSink (): Promise<ServerProcess & { exports: () => Promise<number> }> {
  const child = startChild('./otlp-sink-child.ts')
  const { url } = await child.call<{ url: string }>('start')
  return { child, url, exports: async () => (await child.call<{ exports: number }>('exports')).exports }
}

export interface BareHopProcess extends ServerProcess {
  /** The Bearer access token the hop sends from now on (the emulator forgets tokens on restart). */
  setToken: (token: string) => Promise<void>
}

/** The bare Fastify+undici hop (bare-hop-child.ts) to the emulator's API, sending `token`. */
export async function startBareHop (emulator: EmulatorInfo, token: string, flags: ServerFlags = {}): Promise<BareHopProcess> {
  const child = startChild('./bare-hop-child.ts', flags.nodeFlags, flags.execPath)
  const { url } = await child.call<{ url: string }>('start', { apiUrl: `${emulator.baseUrl}/api`, token, port: await freePort() })
  return { child, url, setToken: async (next) => { await child.call('token', { token: next }) } }
}

export interface HostileTenantStack {
  /** media-bff with the hostile tenant as its one tenant. */
  bff: ServerProcess
  tenant: { child: BenchChild, baseUrl: string, bytes: number, strings: number }
  stop: () => Promise<void>
}

/**
 * The hostile tenant (hostile-tenant-child.ts: every library answer a 4 MiB body full of strings
 * carrying its host) and a media-bff of its own in front of it, configured like the others.
 */
export async function startHostileTenantStack (): Promise<HostileTenantStack> {
  const child = startChild('./hostile-tenant-child.ts')
  const tenant = { child, ...await child.call<{ baseUrl: string, bytes: number, strings: number }>('start') }
  const port = await freePort()
  const info: EmulatorInfo = { baseUrl: tenant.baseUrl, uploadOrigin: tenant.baseUrl, clientId: 'hostile-client', clientSecret: 'hostile-secret', users: [] }
  const bff = await startBffProcess(bffEnv(info, `http://127.0.0.1:${port}`), port)
  return {
    bff,
    tenant,
    stop: async () => {
      await bff.child.stop()
      await child.stop()
    }
  }
}

/** An emulator plus a media-bff in front of it (in-memory store unless env says otherwise). */
export async function startBffStack (env: Record<string, string> = {}, emulatorOptions: EmulatorOptions = {}, flags: ServerFlags = {}): Promise<BffStack> {
  const port = await freePort()
  const publicUrl = `http://127.0.0.1:${port}`
  const emulator = await startEmulatorProcess({ redirectUri: `${publicUrl}/auth/callback`, users: benchUsers(), ...emulatorOptions })
  const fullEnv = bffEnv(emulator, publicUrl, env)
  const bff = await startBffProcess(fullEnv, port, flags)
  const stack: BffStack = {
    emulator,
    bff,
    extra: [],
    env: fullEnv,
    addInstance: async (changes = {}) => {
      const instance = await startBffProcess({ ...fullEnv, ...changes }, undefined, flags)
      stack.extra.push(instance)
      return instance
    },
    restartEmulator: async () => { stack.emulator = await restartEmulator(stack.emulator) },
    stop: async () => {
      for (const server of [stack.bff, ...stack.extra]) await server.child.stop()
      await stack.emulator.child.stop()
    }
  }
  return stack
}
