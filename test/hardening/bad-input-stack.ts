// The stack the bad-input cases run against: the emulator in this process, media-bff in its own
// (a crash fails the case that caused it and the replica is started again for the next one), two
// signed-in users, and a ledger of every secret handed out for the log search.
import { randomBytes } from 'node:crypto'
import { loadConfig } from '../../src/config/config.js'
import type { RunningEmulator } from '../../emulator/index.js'
import { defaultUserInputs } from '../../emulator/fixture-users.js'
import { bffEnv, startEmulatorFor, UNLIMITED_RATES } from '../helpers/bff.js'
import type { Browser, HttpResponse } from '../helpers/http-client.js'
import { freePort } from '../helpers/ports.js'
import { consent, onServer, startLogin } from '../helpers/sign-in.js'
import { startReplica, type Env, type Replica } from './replica.js'
import { SecretLedger } from './secrets.js'
import { WEBSITE_ORIGIN } from './contract.js'

export interface BadInputStack {
  readonly url: string
  readonly cookieName: string
  /** Signed in with the upload scope; every case must leave this session working. */
  readonly alice: Browser
  /** Another user, bob, signed in with the upload scope too. */
  readonly bob: Browser
  /** An upload alice registered (bob may not finish it). */
  readonly aliceUlid: string
  readonly emulator: RunningEmulator
  readonly ledger: SecretLedger
  browser: (headers?: Record<string, string>) => Browser
  signedIn: (user?: string) => Promise<Browser>
  /** A sign-in consented at the emulator whose callback has not been visited yet. */
  pendingCallback: (returnTo?: string) => Promise<{ browser: Browser, callbackUrl: URL }>
  /** GET /auth/login?query; when it redirects, consents and answers with the callback's answer. */
  loginFlow: (query: string) => Promise<HttpResponse>
  /** Ways the server is not serving any more (empty when /healthz and a signed-in session work). */
  serving: () => Promise<string[]>
  /** Starts a fresh replica after a crash and signs the users in again. */
  recover: () => Promise<void>
  /** Notes the cookies every browser holds now. */
  noteCookies: () => void
  /** Everything every replica printed. */
  output: () => string
  close: () => Promise<void>
}

export async function startBadInputStack (env: Env = {}, keeper: 'alice' | 'fresh' = 'alice'): Promise<BadInputStack> {
  const port = await freePort()
  const publicUrl = `http://127.0.0.1:${port}`
  // A long random client secret, so finding it in a log cannot be a coincidence; bob may upload
  // too, so "another user's upload" is refused for being another's, not for a missing scope.
  const emulator = await startEmulatorFor(port, {
    clientSecret: randomBytes(24).toString('base64url'),
    users: [...defaultUserInputs.filter((user) => user.name !== 'bob'), { name: 'bob', scopes: ['basic', 'user.info', 'upload'] }]
  })
  const fullEnv = bffEnv(emulator, publicUrl, {
    OAUTH_SCOPES: 'basic user.info upload',
    // A website on another origin, which sign-ins may return to.
    ALLOWED_ORIGINS: WEBSITE_ORIGIN,
    // Hundreds of sign-ins from one address: the login limit is not what is tested here.
    ...UNLIMITED_RATES,
    ...env
  })
  const { cookieName } = loadConfig(fullEnv).session
  const ledger = new SecretLedger()
  const browsers: Browser[] = []
  const earlierOutput: string[] = []
  let replica: Replica = await startReplica({ name: 'bad-input', env: fullEnv, port })

  const browser = (headers: Record<string, string> = {}): Browser => {
    const created = replica.browser(headers)
    browsers.push(created)
    return created
  }
  const signedIn = async (user = 'alice'): Promise<Browser> => {
    const created = browser()
    await ledger.signIn(created, { user })
    return created
  }
  const users = async (): Promise<{ alice: Browser, bob: Browser, aliceUlid: string }> => {
    const alice = await signedIn('alice')
    const bob = await signedIn('bob')
    const registered = await alice.post('/uploads/register', { folder_id: 0 })
    if (registered.status !== 200) throw new Error(`alice could not register an upload: ${registered.status} ${registered.text}`)
    return { alice, bob, aliceUlid: registered.json().ulid }
  }
  let signedInUsers = await users()

  return {
    url: publicUrl,
    cookieName,
    get alice () { return signedInUsers.alice },
    get bob () { return signedInUsers.bob },
    get aliceUlid () { return signedInUsers.aliceUlid },
    emulator,
    ledger,
    browser,
    signedIn,
    pendingCallback: async (returnTo = '/back') => {
      const created = browser()
      const authorizeUrl = await startLogin(created, `/auth/login?return_to=${encodeURIComponent(returnTo)}`)
      const callbackUrl = await consent(created, authorizeUrl)
      ledger.addCallback(callbackUrl)
      return { browser: created, callbackUrl: new URL(callbackUrl) }
    },
    loginFlow: async (query) => {
      const created = browser()
      const login = await created.get(`/auth/login?${query}`)
      if (login.status !== 302 || login.location === undefined) return login
      const callbackUrl = await consent(created, login.location)
      ledger.addCallback(callbackUrl)
      return await created.get(onServer(created, callbackUrl))
    },
    serving: async () => {
      const problems: string[] = []
      const check = async (): Promise<void> => {
        const health = await replica.browser().get('/healthz')
        if (health.status !== 200) problems.push(`/healthz answered ${health.status}`)
        if (keeper === 'alice') {
          const session = await signedInUsers.alice.get('/auth/session')
          if (session.status !== 200 || session.json().authenticated !== true) problems.push(`alice's session stopped working: ${session.status} ${session.text}`)
        } else {
          const fresh = await signedIn('alice')
          if ((await fresh.get('/auth/session')).json().authenticated !== true) problems.push('a fresh sign-in does not work')
        }
      }
      try {
        // A crashed replica closes for up to 20 s (close-with-grace); do not wait for that.
        await Promise.race([check(), new Promise((_resolve, reject) => setTimeout(() => reject(new Error('no answer within 5 s')), 5000).unref())])
      } catch (error) {
        problems.push(`media-bff stopped answering: ${(error as Error).message}`)
      }
      if (!replica.alive()) problems.push('the media-bff process exited')
      return problems
    },
    recover: async () => {
      earlierOutput.push(replica.output())
      await replica.kill()
      replica = await startReplica({ name: 'bad-input', env: fullEnv, port })
      signedInUsers = await users()
    },
    noteCookies: () => { for (const each of browsers) ledger.addCookies(each) },
    output: () => [...earlierOutput, replica.output()].join('\n'),
    close: async () => {
      await replica.stop()
      await emulator.stop()
    }
  }
}
