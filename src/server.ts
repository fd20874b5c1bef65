// Production entry point (`npm run serve`, the container's command): configuration from the
// environment (and a file of variables under it: src/config/env-file.ts), listen, and a graceful close
// on SIGTERM/SIGINT. Never starts the emulator.
import closeWithGrace from 'close-with-grace'
import { ConfigError, loadConfig } from './config/config.js'
import { buildApp } from './app.js'
import { withEnvFile } from './config/env-file.js'
import { KNOWN_NAMES } from './config/variables.js'
import { SHUTDOWN_GRACE_MS } from './server-options.js'
import { standardOutputLogs } from './log-destination.js'

/** How long the last log lines get to go out once everything else has closed. */
const LOG_FLUSH_MS = 1_000

async function main (): Promise<void> {
  let config
  let fromFile
  try {
    fromFile = withEnvFile(process.env)
    config = loadConfig(fromFile.env, fromFile.file === undefined ? {} : { file: { path: fromFile.file, taken: fromFile.taken } })
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`)
      process.exit(78) // EX_CONFIG
    }
    throw error
  }
  // Before the app is built, so its requests and calls are traced; not even loaded when off.
  const tracing = config.tracing.enabled ? (await import('./tracing/sdk.js')).startTracing(config, fromFile.env) : undefined
  const app = await buildApp(config)
  // Only what media-bff reads: any other name in the file was named in a warning instead.
  if (fromFile.file !== undefined) app.log.info({ file: fromFile.file, variables: fromFile.taken.filter((name) => KNOWN_NAMES.has(name)) }, 'configuration: variables taken from a file (the environment set none of them)')
  // On SIGTERM: stop accepting, let in-flight requests finish (new ones get 503 while closing),
  // then close Redis and the upstream pools through the onClose hooks, and send the last spans.
  // close-with-grace's own words go to the log too, never to a stderr nobody may be reading.
  const logger = { error: (message: unknown) => { app.log.error({ err: message }, 'closing') } }
  closeWithGrace({ delay: SHUTDOWN_GRACE_MS, logger }, async ({ signal, err }) => {
    if (err !== undefined) app.log.error({ err }, 'closing after an error')
    else app.log.info({ signal }, 'closing')
    await app.close()
    await tracing?.shutdown()
    // Whatever a reader has not taken by then goes with the process: it never waits on its logs.
    await standardOutputLogs().flush(LOG_FLUSH_MS)
  })
  await app.listen({ host: config.host, port: config.port })
}

await main()
