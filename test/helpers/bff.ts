// Starts media-bff for a test on a free loopback port, in front of a real emulator, with either
// store, and captures every log line so tests can search them for secrets.
import { Writable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { loadConfig, type Config } from '../../src/config/config.js'
import { defaultLogger } from '../../src/server-options.js'
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../emulator/index.js'
import { freePort } from './ports.js'
import { Browser } from './http-client.js'
import { TEST_SESSION_SECRET, testTokenKey } from './secrets.js'

export interface TestBff {
  /** media-bff, as buildApp made it: its decorators (stores, grants, live, ...) are reachable for tests that look inside. */
  app: FastifyInstance
  config: Config
  url: string
  logs: string[]
  browser: (headers?: Record<string, string>) => Browser
  close: () => Promise<void>
}

export { TEST_SESSION_SECRET, testTokenKey }

/**
 * Rate limits high enough never to answer 429: for suites that sign in hundreds of times from one
 * address, where the limits are not what is tested.
 */
export const UNLIMITED_RATES = {
  RATE_LIMIT_LOGIN_PER_MINUTE: '100000',
  RATE_LIMIT_REGISTER_PER_MINUTE: '100000',
  RATE_LIMIT_FINISH_PER_MINUTE: '100000',
  RATE_LIMIT_API_PER_MINUTE: '100000',
  RELAY_MAX_IN_FLIGHT_PER_USER: '10000'
} as const satisfies Record<string, string>

/** media-bff's environment in front of `emulator`; `publicUrl` must match its redirect URI. */
export function bffEnv (emulator: RunningEmulator, publicUrl: string, env: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    PUBLIC_URL: publicUrl,
    MEDIA_BASE_URL: emulator.baseUrl,
    OAUTH_CLIENT_ID: emulator.clientId,
    OAUTH_CLIENT_SECRET: emulator.clientSecret,
    SESSION_SECRETS: TEST_SESSION_SECRET,
    TOKEN_KEYS: testTokenKey(),
    LOG_LEVEL: 'debug',
    ...env
  }
}

export async function startBff (emulator: RunningEmulator, env: Record<string, string | undefined> = {}, port?: number): Promise<TestBff> {
  const listenPort = port ?? await freePort()
  const url = `http://127.0.0.1:${listenPort}`
  const config = loadConfig(bffEnv(emulator, url, env))
  const logs: string[] = []
  const stream = new Writable({
    write (chunk, _encoding, callback) {
      logs.push(String(chunk))
      callback()
    }
  })
  const app = await buildApp(config, { ...(defaultLogger(config) as object), stream })
  try {
    await app.listen({ host: '127.0.0.1', port: listenPort })
  } catch (error) {
    // The port was taken meanwhile (see startStack): leave nothing open behind.
    await app.close()
    throw error
  }
  return {
    app,
    config,
    url,
    logs,
    browser: (headers = {}) => new Browser(url, headers),
    close: async () => { await app.close() }
  }
}

/** An emulator whose registered redirect URI points at a BFF that will listen on `port`. */
export async function startEmulatorFor (port: number, options: EmulatorOptions = {}, publicUrl = `http://127.0.0.1:${port}`): Promise<RunningEmulator> {
  return await startEmulator({ apiPort: 0, uploadPort: 0, redirectUri: `${publicUrl}/auth/callback`, ...options })
}

/** Emulator + BFF wired together for one test. */
export async function startStack (options: { emulator?: EmulatorOptions, env?: Record<string, string | undefined>, publicUrl?: string, publicHost?: string } = {}): Promise<{ emulator: RunningEmulator, bff: TestBff, close: () => Promise<void> }> {
  // The port media-bff will listen on must be known before the emulator starts (its registered
  // redirect URI names it); the kernel may hand that very port to one of the emulator's own
  // listeners (port 0) in between. Then both go and the stack starts again on another port.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort()
    // publicHost: another name for this machine (localhost), another site than the emulator's 127.0.0.1.
    const publicUrl = options.publicUrl ?? `http://${options.publicHost ?? '127.0.0.1'}:${port}`
    // Under a BASE_PATH the callback moves with every other route.
    const basePath = (options.env?.BASE_PATH ?? '').replace(/\/+$/, '')
    const emulator = await startEmulatorFor(port, { redirectUri: `${publicUrl}${basePath}/auth/callback`, ...options.emulator }, publicUrl)
    try {
      const bff = await startBff(emulator, { PUBLIC_URL: publicUrl, ...options.env }, port)
      return {
        emulator,
        bff,
        close: async () => {
          await bff.close()
          await emulator.stop()
        }
      }
    } catch (error) {
      await emulator.stop()
      if ((error as { code?: string }).code !== 'EADDRINUSE' || attempt === 5) throw error
    }
  }
}
