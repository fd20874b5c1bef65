// `npm start`: the local demo. Starts the embedded media-service emulator and media-bff with the
// demo website on http://localhost:3000, prints where to go and who can sign in, and stops both
// on Ctrl-C. Everything can be overridden from the environment; nothing here is for production.
import { randomBytes } from 'node:crypto'
import closeWithGrace from 'close-with-grace'
import { startEmulator } from './emulator/index.js'
import { ConfigError, loadConfig } from './config.js'
import { buildApp } from './app.js'

const env = process.env
const port = Number(env.PORT ?? 3000)
const publicUrl = env.PUBLIC_URL ?? `http://localhost:${port}`

const emulator = await startEmulator({
  host: env.EMULATOR_HOST ?? '127.0.0.1',
  apiPort: Number(env.EMULATOR_API_PORT ?? 4000),
  uploadPort: Number(env.EMULATOR_UPLOAD_PORT ?? 4001),
  redirectUri: `${publicUrl}/auth/callback`,
  corsOrigins: [new URL(publicUrl).origin]
})

let config
try {
  config = loadConfig({
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    // Fresh secrets per run: the demo's sessions live in memory and end with the process anyway.
    SESSION_SECRETS: randomBytes(32).toString('base64url'),
    TOKEN_KEYS: `dev:${randomBytes(32).toString('base64')}`,
    OAUTH_SCOPES: 'basic user.info',
    ...env,
    PORT: String(port),
    PUBLIC_URL: publicUrl,
    MEDIA_BASE_URL: env.MEDIA_BASE_URL ?? emulator.baseUrl,
    OAUTH_CLIENT_ID: env.OAUTH_CLIENT_ID ?? emulator.clientId,
    OAUTH_CLIENT_SECRET: env.OAUTH_CLIENT_SECRET ?? emulator.clientSecret,
    ALLOW_INSECURE_UPSTREAM: 'on',
    DEMO_SITE: 'on'
  })
} catch (error) {
  await emulator.stop()
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`)
    process.exit(78)
  }
  throw error
}

const app = await buildApp(config)
closeWithGrace({ delay: 5000 }, async () => {
  await app.close()
  await emulator.stop()
})
await app.listen({ host: config.host, port: config.port })

const users = emulator.users.map((user) => `    ${user.name.padEnd(6)} ${user.scopes.join(' ')}`).join('\n')
process.stdout.write(`
media-bff demo is running: open ${publicUrl}

  media service emulator  ${emulator.apiOrigin} (uploads: ${emulator.uploadOrigin})
  sign in as one of:
${users}

Press Ctrl-C to stop.
`)
