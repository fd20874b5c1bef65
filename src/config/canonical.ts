// The configuration the OpenAPI description is generated with (src/app.ts, describeApi): fixed,
// so the description is the same whatever the environment of the instance that serves /docs or
// of whoever runs `npm run openapi`, and needing none of its secrets. Every route that some
// configurations leave out is in (the webhooks, the operators' lever), at its default path, and
// the demo site is out (not part of the API). No base path: the paths are the routes' own, and a
// deployment's base path is a variable of the description's server. The secrets are made up for
// the one build and never used: the app is built to be described, never started.
import { randomBytes } from 'node:crypto'
import { loadConfig, type Config } from './config.js'

const madeUp = (): string => randomBytes(32).toString('base64url')

export function canonicalConfig (): Config {
  return loadConfig({
    PUBLIC_URL: 'https://media-bff.example',
    MEDIA_BASE_URL: 'https://media.example',
    OAUTH_CLIENT_ID: 'media-bff',
    OAUTH_CLIENT_SECRET: madeUp(),
    SESSION_SECRETS: madeUp(),
    TOKEN_KEYS: `described:${randomBytes(32).toString('base64')}`,
    WEBHOOK_KEYS: madeUp(),
    METRICS_TOKEN: madeUp(),
    OPERATOR_TOKEN: madeUp(),
    LOG_LEVEL: 'silent'
  })
}
