// The embedded emulator of the hosted media service: two real HTTP servers, the tenant API
// (OAuth, /api, /__emulator hooks) and the separate upload origin, as the hybrid cloud of
// media-service.md has them. Started from code (tests) or from cli.ts.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { apiServerRoutes } from './api-server-routes.js'
import type { EmulatorContext } from './context.js'
import { copyCounters, zeroCounters, type EmulatorCounters } from './counters.js'
import { createFaultTable, parseFault, type FaultSpec } from './faults.js'
import type { FixtureUser } from './fixture-users.js'
import { listen, originFor, type ListeningServer } from './http/listen.js'
import { sendJson } from './http/responses.js'
import { createRouter, type RequestHandler, type RouterOptions } from './http/router.js'
import { applyRuntimeConfig, type RuntimeConfig } from './hooks/runtime-config.js'
import { createAuthorizationCodeStore } from './oauth/authorization-codes.js'
import { createTokenStore } from './oauth/token-store.js'
import { resolveOptions, type EmulatorOptions } from './options.js'
import { applyCorsHeaders } from './upload/cors.js'
import { createUploadStore } from './upload/upload-store.js'
import { uploadServerRoutes } from './upload/upload-server-routes.js'

export type { EmulatorCounters } from './counters.js'
export type { FaultEndpoint, FaultSpec } from './faults.js'
export type { FixtureUser, FixtureUserInput } from './fixture-users.js'
export type { RuntimeConfig } from './hooks/runtime-config.js'
export type { EmulatorOptions } from './options.js'
export { defaults as emulatorDefaults } from './options.js'

export interface RunningEmulator {
  /** http://127.0.0.1:PORT */
  apiOrigin: string
  /** The tenant base URL (= apiOrigin); the API is at baseUrl + '/api'. */
  baseUrl: string
  uploadOrigin: string
  clientId: string
  clientSecret: string
  /** The registered redirect URI (changeable with configure()). */
  readonly redirectUri: string
  users: FixtureUser[]
  dataDir: string
  counters: () => EmulatorCounters
  resetCounters: () => void
  injectFault: (fault: FaultSpec) => void
  clearFaults: () => void
  /** Changes redirectUri, accessTokenTtl or rotateRefreshTokens while running. */
  configure: (changes: RuntimeConfig) => void
  /** Revokes every grant (of one user): their refresh fails with invalid_grant. */
  revokeTokens: (userName?: string) => void
  /** Closes both servers, destroying open sockets; removes a data dir it created. */
  stop: () => Promise<void>
}

export async function startEmulator (options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const settings = resolveOptions(options)
  const ownsDataDir = settings.dataDir === undefined
  const dataDir = settings.dataDir ?? await mkdtemp(join(tmpdir(), 'media-emulator-'))
  // Before listening, so an unusable data dir fails the start without leaving servers open.
  const uploads = await createUploadStore(dataDir)

  // The servers listen before the routes exist (the routes need the origins, which need the
  // ports); anything arriving in that instant is told to retry.
  const handlers: { api?: RequestHandler, upload?: RequestHandler } = {}
  const notReady: RequestHandler = (_req, res) => { sendJson(res, 503, { error: 'starting', error_description: 'The emulator is starting.', user_message: 'Please retry.' }) }
  const servers: ListeningServer[] = []
  const stopServers = async (): Promise<void> => { await Promise.all(servers.map(async (server) => { await server.close() })) }
  try {
    servers.push(await listen(settings.host, settings.apiPort, (req, res) => { (handlers.api ?? notReady)(req, res) }))
    servers.push(await listen(settings.host, settings.uploadPort, (req, res) => { (handlers.upload ?? notReady)(req, res) }))
  } catch (error) {
    await stopServers()
    if (ownsDataDir) await rm(dataDir, { recursive: true, force: true })
    throw new Error(`The media emulator could not listen on ${settings.host}: ${(error as Error).message}`, { cause: error })
  }
  const [apiServer, uploadServer] = servers as [ListeningServer, ListeningServer]

  const apiOrigin = settings.publicApiOrigin ?? originFor(settings.host, apiServer.port)
  const context: EmulatorContext = {
    settings,
    apiOrigin,
    baseUrl: apiOrigin,
    uploadOrigin: settings.publicUploadOrigin ?? originFor(settings.host, uploadServer.port),
    dataDir,
    counters: zeroCounters(),
    faults: createFaultTable(),
    tokens: createTokenStore(),
    codes: createAuthorizationCodeStore(),
    uploads
  }
  const withFaults: RouterOptions = {
    beforeHandler: async (route, { req, res }) => route.faultEndpoint === undefined || await context.faults.apply(route.faultEndpoint, req, res)
  }
  handlers.api = createRouter(apiServerRoutes(context), withFaults)
  const uploadRouter = createRouter(uploadServerRoutes(context), withFaults)
  handlers.upload = (req, res) => {
    applyCorsHeaders(req, res, settings.corsOrigins)
    uploadRouter(req, res)
  }

  let stopping: Promise<void> | undefined
  return {
    apiOrigin,
    baseUrl: context.baseUrl,
    uploadOrigin: context.uploadOrigin,
    clientId: settings.clientId,
    clientSecret: settings.clientSecret,
    get redirectUri () { return settings.redirectUri },
    users: settings.users,
    dataDir,
    counters: () => copyCounters(context.counters),
    resetCounters: () => { Object.assign(context.counters, zeroCounters()) },
    injectFault: (fault) => { context.faults.inject(parseFault(fault)) },
    clearFaults: () => { context.faults.clear() },
    configure: (changes) => { applyRuntimeConfig(settings, changes) },
    revokeTokens: (userName) => { context.tokens.revokeUser(userName) },
    stop: async () => {
      stopping ??= (async () => {
        await stopServers()
        if (ownsDataDir) await rm(dataDir, { recursive: true, force: true })
      })()
      await stopping
    }
  }
}
