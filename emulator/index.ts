// The embedded emulator of the hosted media service: two real HTTP servers, the tenant API
// (OAuth, /api, /__emulator hooks) and the separate upload origin, as the hybrid cloud of
// media-service.md has them. Started from code (tests) or from cli.ts.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApiServer } from './api-server.js'
import { userNames, type EmulatorContext } from './context.js'
import { copyCounters, zeroCounters, type EmulatorCounters } from './counters.js'
import { createFaultTable, parseFault, type FaultSpec } from './faults.js'
import type { FixtureUser } from './fixture-users.js'
import { listeningPort, originFor } from './http/origin.js'
import { applyRuntimeConfig, type RuntimeConfig } from './hooks/runtime-config.js'
import { createFolderTree } from './library/folder-tree.js'
import { createLibraryVersions } from './library/library-versions.js'
import { createAuthorizationCodeStore } from './oauth/authorization-codes.js'
import { createTokenStore } from './oauth/token-store.js'
import { resolveOptions, type EmulatorOptions } from './options.js'
import { createReceivedLog, type ReceivedRequest } from './received-requests.js'
import { fileReady } from './upload/file-lifecycle.js'
import { createFileProcessing } from './upload/file-processing.js'
import { grantDirectly, type DirectGrant } from './oauth/direct-grant.js'
import { createUploadStore } from './upload/upload-store.js'
import { buildUploadServer } from './upload/upload-server.js'
import { parseWebhookEndpoint, type WebhookEndpointInput } from './webhooks/webhook-endpoints.js'
import type { WebhookAttempt } from './webhooks/webhook-log.js'
import { parseWebhookSend, type WebhookSendSpec } from './webhooks/webhook-send-request.js'
import { createWebhooks } from './webhooks/webhooks.js'

export type { EmulatorCounters } from './counters.js'
export type { FaultEndpoint, FaultSpec } from './faults.js'
export type { FixtureUser, FixtureUserInput } from './fixture-users.js'
export type { RuntimeConfig } from './hooks/runtime-config.js'
export type { EmulatorOptions } from './options.js'
export type { ReceivedRequest } from './received-requests.js'
export { defaults as emulatorDefaults } from './options.js'
export type { WebhookEndpointInput } from './webhooks/webhook-endpoints.js'
export type { WebhookEvent } from './webhooks/webhook-events.js'
export type { WebhookAttempt, WebhookBody } from './webhooks/webhook-log.js'
export type { WebhookSendSpec } from './webhooks/webhook-send-request.js'

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
  /** Changes redirectUri, accessTokenTtl, rotateRefreshTokens or processingMs while running. */
  configure: (changes: RuntimeConfig) => void
  /** Revokes every grant (of one user): their refresh fails with invalid_grant. */
  revokeTokens: (userName?: string) => void
  /**
   * Tokens for a user as a code exchange would issue them (oauth/direct-grant.ts), without an
   * authorization request: for tests that need someone signed in and are not about signing in.
   */
  grantTokens: (userName: string, scopes: readonly string[]) => DirectGrant
  /** The last 200 requests to /api/ as received (method, path with query, headers), oldest first. */
  receivedRequests: () => ReceivedRequest[]
  clearReceivedRequests: () => void
  /** Adds a webhook endpoint to an account (one it has at the same URL is replaced); checked like the hook's. */
  addWebhook: (endpoint: WebhookEndpointInput) => void
  /** Removes every webhook endpoint (the log of attempts stays). */
  clearWebhooks: () => void
  /** Every delivery attempt, oldest first (the last 200). */
  webhooksSent: () => WebhookAttempt[]
  /** One delivery to an account's endpoint, now, without retries; resolves with the status it answered (0 without one). */
  sendWebhook: (spec: WebhookSendSpec) => Promise<{ status: number }>
  /** Closes both servers, destroying open sockets; removes a data dir it created. */
  stop: () => Promise<void>
}

export async function startEmulator (options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const settings = resolveOptions(options)
  const ownsDataDir = settings.dataDir === undefined
  const dataDir = settings.dataDir ?? await mkdtemp(join(tmpdir(), 'media-emulator-'))
  // Before listening, so an unusable data dir fails the start without leaving servers open.
  const uploads = await createUploadStore(dataDir)

  const context: EmulatorContext = {
    settings,
    listening: false,
    apiOrigin: '',
    baseUrl: '',
    uploadOrigin: '',
    dataDir,
    counters: zeroCounters(),
    faults: createFaultTable(),
    tokens: createTokenStore(),
    codes: createAuthorizationCodeStore(),
    uploads,
    processing: createFileProcessing((file) => { fileReady(context, file) }),
    folders: createFolderTree(),
    library: createLibraryVersions(),
    received: createReceivedLog(),
    webhooks: createWebhooks({ endpoints: settings.webhooks, retryDelaysMs: settings.webhookRetryDelaysMs })
  }
  const apiServer = buildApiServer(context)
  const uploadServer = buildUploadServer(context)
  const stopServers = async (): Promise<void> => {
    context.processing.stop()
    await Promise.all([apiServer.close(), uploadServer.close(), context.webhooks.stop()])
  }
  // Each server on its own, so a taken port is said with the variable that moves it.
  for (const [server, port, variable] of [[apiServer, settings.apiPort, 'EMULATOR_API_PORT'], [uploadServer, settings.uploadPort, 'EMULATOR_UPLOAD_PORT']] as const) {
    try {
      await server.listen({ host: settings.host, port })
    } catch (error) {
      await stopServers()
      if (ownsDataDir) await rm(dataDir, { recursive: true, force: true })
      const why = (error as NodeJS.ErrnoException).code === 'EADDRINUSE'
        ? `port ${port} is taken (another emulator or \`npm start\`?); ${variable} moves it, 0 picks a free one`
        : (error as Error).message
      throw new Error(`The media emulator could not listen on ${settings.host}:${port}: ${why}`, { cause: error })
    }
  }
  // The answers name both origins, so nothing is served until both ports are known.
  context.apiOrigin = settings.publicApiOrigin ?? originFor(settings.host, listeningPort(apiServer))
  context.baseUrl = context.apiOrigin
  context.uploadOrigin = settings.publicUploadOrigin ?? originFor(settings.host, listeningPort(uploadServer))
  context.listening = true
  const { apiOrigin } = context

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
    configure: (changes) => { applyRuntimeConfig(context, changes) },
    revokeTokens: (userName) => { context.tokens.revokeUser(userName) },
    grantTokens: (userName, scopes) => grantDirectly(context, userName, scopes),
    receivedRequests: () => context.received.list(),
    clearReceivedRequests: () => { context.received.clear() },
    addWebhook: (endpoint) => { context.webhooks.endpoints.add(parseWebhookEndpoint(endpoint, userNames(context))) },
    clearWebhooks: () => { context.webhooks.endpoints.clear() },
    webhooksSent: () => context.webhooks.sent(),
    sendWebhook: async (spec) => ({ status: await context.webhooks.send(parseWebhookSend(spec, userNames(context), context.webhooks.endpoints)) }),
    stop: async () => {
      stopping ??= (async () => {
        await stopServers()
        if (ownsDataDir) await rm(dataDir, { recursive: true, force: true })
      })()
      await stopping
    }
  }
}
