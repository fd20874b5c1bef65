// `npm start`: the local demo. Starts the embedded media-service emulator and media-bff with the
// demo website on http://localhost:3000, prints where to go and who can sign in, and stops both
// on Ctrl-C. Everything can be overridden from the environment or a .env file (the environment
// winning); nothing here is for production.
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import closeWithGrace from 'close-with-grace'
import { readEmulatorEnv } from '../emulator/env-options.js'
import { startEmulator } from '../emulator/index.js'
import { ConfigError, loadConfig } from './config/config.js'
import { KNOWN_NAMES } from './config/variables.js'
import { EnvReader } from './config/env-reader.js'
import { buildApp } from './app.js'
import { withEnvFile, withoutBlanks } from './config/env-file.js'
import { requireSupportedNode } from './node-version.js'

requireSupportedNode()

/** How often `npm start` looks whether what started it is still there (stopWithLauncher). */
const LAUNCHER_CHECK_MS = 250

const fromFile = withEnvFile(process.env)
// A variable set blank (NAME=) is unset here too, so the demo's defaults below stand.
const env = withoutBlanks(fromFile.env)

// PORT, PUBLIC_URL and EMULATOR_* are read before anything starts, with one reader, so a bad
// value is reported by name (exit 78, as loadConfig's problems are) and never becomes NaN.
const read = new EnvReader(env)
const port = read.integer('PORT', 3000, { min: 0, max: 65535 })
const publicUrl = read.url('PUBLIC_URL', read.raw('PUBLIC_URL')) ?? `http://localhost:${port}`
// Checked with everything else by loadConfig below; the emulator needs the callback's place first.
const basePath = (read.raw('BASE_PATH') ?? '').replace(/\/+$/, '')
const emulatorOptions = readEmulatorEnv(read)
// The pages of ALLOWED_ORIGINS (a front-end's dev server on its own port, say) upload straight
// to the emulator as PUBLIC_URL's do; a bad entry is left to loadConfig to name.
const allowedOrigins = read.list('ALLOWED_ORIGINS').flatMap((origin) => URL.canParse(origin) ? [new URL(origin).origin] : [])
if (read.problems.length > 0) {
  process.stderr.write(`${new ConfigError(read.problems).message}\n`)
  process.exit(78)
}

// The emulator's defaults (127.0.0.1, ports 4000 and 4001) unless EMULATOR_* says otherwise;
// the redirect URI and the upload CORS origins follow PUBLIC_URL and ALLOWED_ORIGINS unless set
// explicitly.
const emulator = await startEmulator({
  ...emulatorOptions,
  redirectUri: emulatorOptions.redirectUri ?? `${publicUrl}${basePath}/auth/callback`,
  corsOrigins: emulatorOptions.corsOrigins ?? [...new Set([new URL(publicUrl).origin, ...allowedOrigins])]
}).catch((error: unknown) => {
  // A taken port or a bad EMULATOR_* value that only the emulator can judge (an origin, a URI).
  process.stderr.write(`${(error as Error).message}\n`)
  process.exit(78)
})

/** Whether the environment gives this secret, itself or as NAME_FILE (a default beside it would be refused). */
const given = (name: string): boolean => env[name] !== undefined || env[`${name}_FILE`] !== undefined

// The emulator's webhooks come to this media-bff, signed with a key made for this run, unless
// WEBHOOK_KEYS or EMULATOR_WEBHOOK_URL say where they go and how they are signed.
const webhookKey = !given('WEBHOOK_KEYS') && emulatorOptions.webhooks === undefined ? randomBytes(24).toString('base64url') : undefined

let config
try {
  config = loadConfig({
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    // Fresh secrets per run: the demo's sessions live in memory and end with the process anyway.
    ...(given('SESSION_SECRETS') ? {} : { SESSION_SECRETS: randomBytes(32).toString('base64url') }),
    ...(given('TOKEN_KEYS') ? {} : { TOKEN_KEYS: `dev:${randomBytes(32).toString('base64')}` }),
    ...(given('OAUTH_CLIENT_SECRET') ? {} : { OAUTH_CLIENT_SECRET: emulator.clientSecret }),
    OAUTH_SCOPES: 'basic user.info',
    ...(webhookKey === undefined ? {} : { WEBHOOK_KEYS: webhookKey }),
    ...env,
    PORT: String(port),
    PUBLIC_URL: publicUrl,
    MEDIA_BASE_URL: env.MEDIA_BASE_URL ?? emulator.baseUrl,
    OAUTH_CLIENT_ID: env.OAUTH_CLIENT_ID ?? emulator.clientId,
    ALLOW_INSECURE_UPSTREAM: 'on',
    DEMO_SITE: 'on'
  }, {
    ...(fromFile.file === undefined ? {} : { file: { path: fromFile.file, taken: fromFile.taken } }),
    // The emulator's EMULATOR_* variables, read above, are known names here too.
    alsoKnown: read.names
  })
} catch (error) {
  await emulator.stop()
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`)
    process.exit(78)
  }
  throw error
}

// The demo traces too when OTEL_EXPORTER_OTLP_ENDPOINT says where to (src/tracing/sdk.ts).
const tracing = config.tracing.enabled ? (await import('./tracing/sdk.js')).startTracing(config, env) : undefined
const app = await buildApp(config)
const taken = fromFile.taken.filter((name) => KNOWN_NAMES.has(name) || read.names.has(name))
if (fromFile.file !== undefined) process.stdout.write(`Read ${fromFile.file}: ${taken.join(', ') || 'nothing the environment left unset'}\n`)
closeWithGrace({ delay: 5000 }, async () => {
  await app.close()
  await emulator.stop()
  await tracing?.shutdown()
})
stopWithLauncher()
try {
  await app.listen({ host: config.host, port: config.port })
} catch (error) {
  await emulator.stop()
  // EADDRINUSE is not a bug of ours: say which port and what moves it, and leave non-zero.
  const code = (error as NodeJS.ErrnoException).code
  const why = code === 'EADDRINUSE' ? `port ${config.port} is taken (another \`npm start\`?); PORT moves it, e.g. PORT=3100 npm start` : (error as Error).message
  process.stderr.write(`media-bff could not listen on ${config.host}:${config.port}: ${why}\n`)
  process.exit(code === 'EADDRINUSE' ? 78 : 1)
}
if (webhookKey !== undefined) {
  // Server to server, so straight to the port media-bff listens on, whatever PUBLIC_URL says.
  const { port: listening } = app.server.address() as AddressInfo
  for (const user of emulator.users) emulator.addWebhook({ user: user.name, url: `http://127.0.0.1:${listening}${config.basePath}${config.webhooks.path}`, key: webhookKey })
}

const users = emulator.users.map((user) => `    ${user.name.padEnd(6)} ${user.scopes.join(' ')}`).join('\n')
process.stdout.write(`
media-bff demo is running: open ${publicUrl}${config.basePath}/

  media service emulator  ${emulator.apiOrigin} (uploads: ${emulator.uploadOrigin})
  sign in as one of:
${users}

Press Ctrl-C to stop.
`)

/**
 * Stops as on SIGTERM once the process that started this one is gone without a word (npm killed
 * with SIGKILL, say): this process is then left to init and its parent id changes. `npm start`
 * runs it with `exec`, so npm is its parent and passes on a SIGTERM or SIGINT it is sent itself
 * (by an IDE or a process manager); a shell in between would keep them.
 */
function stopWithLauncher (): void {
  const launcher = process.ppid
  const watch = setInterval(() => {
    if (process.ppid === launcher) return
    clearInterval(watch)
    process.kill(process.pid, 'SIGTERM')
  }, LAUNCHER_CHECK_MS).unref()
}
