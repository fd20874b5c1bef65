// media-bff for a route test: built as production builds it (buildApp), in front of a real
// emulator, driven with app.inject (no port, no socket), torn down with the test. signIn()
// starts a session without the browser walk: the emulator issues the tokens directly
// (POST /__emulator/grants) and the session is made by media-bff's own modules, as a completed
// sign-in makes it; the sign-in itself is tested elsewhere (test/auth/), with the walk.
import { randomBytes } from 'node:crypto'
import type { Test } from 'tap'
import fastifyCookie from '@fastify/cookie'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { buildApp } from '../../src/app.js'
import { loadConfig, type Config } from '../../src/config/config.js'
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../emulator/index.js'
import { sessionAfterSignIn } from '../../src/sign-in/session-after-sign-in.js'
import { newSessionHandle } from '../../src/sessions/session-index.js'
import { bffEnv } from './bff.js'
import { Browser, overHttp, type Send } from './http-client.js'
import { sessionRecords } from './session-records.js'

export interface Built {
  app: FastifyInstance
  config: Config
  emulator: RunningEmulator
  /** app.inject, with X-CSRF: 1 on every request (a test of the CSRF check sends its own headers). */
  inject: (options: InjectOptions) => Promise<LightMyRequestResponse>
  /** A signed-in session of `user` with `scopes` (cut to what the user may grant); resolves to its Cookie header. */
  signIn: (user?: string, scopes?: readonly string[]) => Promise<string>
  /** A browser whose requests to media-bff are injected (anything else goes over HTTP). */
  browser: (headers?: Record<string, string>) => Browser
  /** A browser holding a signed-in session (signIn). */
  signedIn: (user?: string, scopes?: readonly string[]) => Promise<Browser>
}

/** Where the injected app pretends to be: PUBLIC_URL. */
const ORIGIN = 'http://127.0.0.1:3000'

export interface BuildOptions {
  env?: Record<string, string | undefined>
  emulator?: EmulatorOptions
  /** media-bff's clock (session lifetimes, store TTLs, live channels): a test moves it on instead of sleeping. */
  clock?: () => number
  /** buildApp from another import of src/app.ts (t.mockImport, for a test that changes one of its modules). */
  buildApp?: typeof buildApp
}

export async function build (t: Test, options: BuildOptions = {}): Promise<Built> {
  const emulator = await startEmulator({ apiPort: 0, uploadPort: 0, ...options.emulator })
  t.teardown(emulator.stop)
  // Nobody connects to this address: requests are injected.
  const config = loadConfig(bffEnv(emulator, ORIGIN, { LOG_LEVEL: 'silent', ...options.env }))
  const app = await (options.buildApp ?? buildApp)(config, false, options.clock)
  t.teardown(async () => { await app.close() })
  await app.ready()
  const signer = new fastifyCookie.Signer(config.session.secrets, 'sha256')
  const records = sessionRecords(app, config)

  const signIn = async (user = 'alice', scopes: readonly string[] = config.oauth.scopes): Promise<string> => {
    const tokens = emulator.grantTokens(user, scopes)
    const now = app.clock()
    const grant = await app.grants.create({
      tenant: config.defaultTenant,
      userId: tokens.user_id,
      accessToken: tokens.access_token,
      refreshToken: tokens.refresh_token,
      expiresAt: now + tokens.expires_in * 1000,
      scopes: tokens.scope === '' ? [] : tokens.scope.split(' ')
    })
    const fixture = emulator.users.find((candidate) => candidate.name === user)
    const record = {
      ...sessionAfterSignIn({}, {
        grantId: grant.id,
        grantedScopes: grant.scopes,
        user: { userId: tokens.user_id, name: fixture?.fullName, email: fixture?.email, scopes: fixture?.scopes },
        deniedScopes: []
      }, { tenant: config.defaultTenant, addedScopes: [] }, now),
      handle: newSessionHandle()
    }
    const sid = randomBytes(24).toString('base64url')
    await records.write(sid, record)
    await records.index.add({ tenant: config.defaultTenant, userId: tokens.user_id }, record.handle, { sid, grantId: grant.id, createdAt: now, device: 'a test', network: '127.0.0.0/24' })
    return `${config.session.cookieName}=${signer.sign(sid)}`
  }

  const injected: Send = async (method, url, headers, body) => {
    if (!url.startsWith(`${ORIGIN}/`)) return await overHttp(method, url, headers, body)
    const answer = await app.inject({ method: method as 'GET', url: url.slice(ORIGIN.length), headers, ...(body === undefined ? {} : { payload: body }) })
    return { status: answer.statusCode, headers: answer.headers as Record<string, string | string[] | undefined>, text: answer.body }
  }
  const browser = (headers: Record<string, string> = {}): Browser => new Browser(ORIGIN, headers, injected)

  return {
    app,
    config,
    emulator,
    inject: async (request) => await app.inject({ ...request, headers: { 'x-csrf': '1', ...request.headers } }),
    signIn,
    browser,
    signedIn: async (user, scopes) => {
      const cookie = await signIn(user, scopes)
      const signedIn = browser()
      const at = cookie.indexOf('=')
      signedIn.cookies.set(cookie.slice(0, at), cookie.slice(at + 1))
      return signedIn
    }
  }
}
