// The production topology of docker/compose.yaml, run natively for one test: real nginx from
// docker/nginx.conf terminating TLS with a self-signed certificate, media-bff replicas as
// separate processes started from src/server.ts, a real redis-server with AOF, and the emulator
// as the media service. Everything started is torn down in t.teardown, even after a failure.
import { randomBytes } from 'node:crypto'
import { Agent, getGlobalDispatcher, setGlobalDispatcher } from 'undici'
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../emulator/index.js'
import { UNLIMITED_RATES } from '../helpers/bff.js'
import { Browser, type HttpResponse } from '../helpers/http-client.js'
import { startNginx, type NginxOptions, type RunningNginx } from '../helpers/nginx.js'
import { freePort } from '../helpers/ports.js'
import { startBffProcess, type BffProcess, type Env } from '../helpers/processes.js'
import { startRedis, type RedisServer } from '../helpers/redis.js'
import { makeSelfSignedCert, type SelfSignedCert } from '../helpers/tls.js'
import { testAssertionKey } from '../helpers/secrets.js'

interface Teardown { teardown: (fn: () => Promise<void> | void) => void }

// tap drops the remaining teardowns once one fails; a stuck process must not leave Redis,
// nginx and the others running, so each step reports its failure and lets the next one run.
function cleanup (t: Teardown, what: string, step: () => Promise<void>): void {
  t.teardown(async () => {
    try {
      await step()
    } catch (error) {
      process.stderr.write(`teardown of ${what} failed: ${(error as Error).message}\n`)
    }
  })
}

export interface ProductionStack {
  cert: SelfSignedCert
  redis: RedisServer
  emulator: RunningEmulator
  replicas: BffProcess[]
  nginx: RunningNginx
  /** https://localhost:port, where nginx serves PUBLIC_URL. */
  publicUrl: string
  keyPrefix: string
  /** The environment every replica started with. */
  env: Env
  /** METRICS_TOKEN of the replicas: /metrics and /docs answer only `Authorization: Bearer` it. */
  metricsToken: string
  /** OPERATOR_TOKEN of the replicas: their operators' lever answers only `Authorization: Bearer` it. */
  operatorToken: string
  /** A browser talking to nginx over https. */
  browser: () => Browser
  /** Starts one more media-bff on the same Redis and emulator (not behind nginx). */
  startReplica: (name: string, changes?: Env) => Promise<BffProcess>
  /** The replica that answered, from the X-Test-Upstream header nginx adds in these tests. */
  servedBy: (response: HttpResponse) => BffProcess
}

export interface StackOptions {
  replicas?: number
  env?: Env
  emulator?: EmulatorOptions
  /** Another nginx example than docker/nginx.conf, and the site it serves. */
  nginx?: Pick<NginxOptions, 'confFile' | 'siteRoot' | 'siteServer'>
}

/** The address nginx connects to the replicas from: any 127/8 address is loopback on Linux. */
export const PROXY_ADDRESS = '127.0.0.2'

export const newSessionSecret = (): string => randomBytes(32).toString('base64url')
export const newTokenKey = (id: string): string => `${id}:${randomBytes(32).toString('base64')}`

export async function startProductionStack (t: Teardown, options: StackOptions = {}): Promise<ProductionStack> {
  const cert = await makeSelfSignedCert()
  cleanup(t, 'the certificate', cert.remove)
  // Browser (undici.request) and fetch use the global dispatcher: trust exactly our certificate.
  const previousDispatcher = getGlobalDispatcher()
  const agent = new Agent({ connect: { ca: cert.cert } })
  setGlobalDispatcher(agent)
  cleanup(t, 'the https agent', async () => {
    setGlobalDispatcher(previousDispatcher)
    await agent.close()
  })

  const redis = await startRedis()
  cleanup(t, 'redis', redis.destroy)

  const httpsPort = await freePort()
  const publicUrl = `https://localhost:${httpsPort}`
  // Under a BASE_PATH the callback moves with every other route.
  const basePath = (options.env?.BASE_PATH ?? '').replace(/\/+$/, '')
  const emulator = await startEmulator({ apiPort: 0, uploadPort: 0, redirectUri: `${publicUrl}${basePath}/auth/callback`, ...options.emulator })
  cleanup(t, 'the emulator', emulator.stop)

  const keyPrefix = `prod-${randomBytes(4).toString('hex')}:`
  const metricsToken = randomBytes(32).toString('base64url')
  const operatorToken = randomBytes(32).toString('base64url')
  const env: Env = {
    NODE_ENV: 'production',
    PUBLIC_URL: publicUrl,
    LOG_LEVEL: 'info',
    // nginx reaches the replicas from 127.0.0.2 (proxy_bind below): the proxy has an address of
    // its own, as in compose, and the test's direct requests from 127.0.0.1 are not trusted.
    TRUST_PROXY: PROXY_ADDRESS,
    MEDIA_BASE_URL: emulator.baseUrl,
    // The emulator speaks plain http; a production start refuses that unless told.
    ALLOW_INSECURE_UPSTREAM: 'on',
    OAUTH_CLIENT_ID: emulator.clientId,
    OAUTH_CLIENT_SECRET: emulator.clientSecret,
    OAUTH_SCOPES: 'basic user.info upload',
    SESSION_SECRETS: newSessionSecret(),
    TOKEN_KEYS: newTokenKey('k1'),
    // One key for every replica: an assertion one signs verifies against any one's key set.
    ASSERTION_KEYS: testAssertionKey('a1'),
    // A production start needs it: the emulator's upload host, which hands out the upload URLs.
    UPLOAD_ALLOWED_HOSTS: new URL(emulator.uploadOrigin).host,
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: keyPrefix,
    // As production should: /metrics and /docs for the operators' token only.
    METRICS_TOKEN: metricsToken,
    OPERATOR_TOKEN: operatorToken,
    // Every request of these tests comes from 127.0.0.1.
    ...UNLIMITED_RATES,
    ...options.env
  }

  const startReplica = async (name: string, changes: Env = {}): Promise<BffProcess> => {
    const replica = await startBffProcess({ name, env: { ...env, ...changes } })
    cleanup(t, name, async () => { await replica.stop('SIGTERM') })
    return replica
  }
  const names = Array.from({ length: options.replicas ?? 2 }, (_, index) => `replica-${String.fromCharCode(97 + index)}`)
  const replicas = await Promise.all(names.map(async (name) => await startReplica(name)))

  const nginx = await startNginx({
    upstreams: replicas.map((replica) => `127.0.0.1:${replica.port}`),
    certFile: cert.certFile,
    keyFile: cert.keyFile,
    httpsPort,
    ...options.nginx,
    extraServerDirectives: [
      `proxy_bind ${PROXY_ADDRESS};`,
      // Test-only: which replica answered, so tests can prove where a request was served.
      'add_header X-Test-Upstream $upstream_addr always;'
    ]
  })
  cleanup(t, 'nginx', nginx.stop)

  return {
    cert,
    redis,
    emulator,
    replicas,
    nginx,
    publicUrl,
    keyPrefix,
    env,
    metricsToken,
    operatorToken,
    browser: () => new Browser(publicUrl),
    startReplica,
    servedBy: (response) => {
      const upstream = String(response.headers['x-test-upstream'] ?? '')
      // After a retry nginx lists every upstream tried ("a, b"); the last one answered.
      const last = upstream.split(',').pop()?.trim() ?? ''
      const replica = replicas.find((candidate) => last === `127.0.0.1:${candidate.port}`)
      if (replica === undefined) throw new Error(`no replica served this response (X-Test-Upstream: "${upstream}", status ${response.status})`)
      return replica
    }
  }
}

/**
 * Sends GET /healthz through nginx until a replica other than `wanted` answers: with two
 * replicas in round robin (one worker, see nginx.ts) the next request then goes to `wanted`.
 */
export async function nextGoesTo (stack: ProductionStack, wanted: BffProcess): Promise<void> {
  const browser = new Browser(stack.publicUrl)
  for (let attempt = 0; attempt < 8; attempt++) {
    const answer = await browser.get('/healthz')
    if (stack.servedBy(answer) !== wanted) return
  }
  throw new Error(`nginx sent every request to ${wanted.name}: round robin is not alternating`)
}
