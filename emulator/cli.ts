// The emulator as a program: `npm run emulator` (tsx emulator/cli.ts) or, compiled,
// `node dist/emulator/cli.js`. Configured by EMULATOR_* variables (env-options.ts); prints
// where it listens and the credentials to use; Ctrl-C or SIGTERM stops it cleanly (exit 0).
import { startEmulator, type RunningEmulator } from './index.js'
import { optionsFromEnv } from './env-options.js'

function describe (emulator: RunningEmulator): string {
  const users = emulator.users.map((user) =>
    `    ${user.name.padEnd(8)} ${user.fullName} <${user.email}>\n` +
    `             scopes: ${user.scopes.join(' ')}\n` +
    `             private token: ${user.privateToken}`)
  return [
    'media service emulator (for development and tests only; not the real service)',
    `  API origin:     ${emulator.apiOrigin}   (tenant base URL; API at ${emulator.baseUrl}/api)`,
    `  upload origin:  ${emulator.uploadOrigin}`,
    `  client id:      ${emulator.clientId}`,
    `  client secret:  ${emulator.clientSecret}`,
    `  redirect URI:   ${emulator.redirectUri}`,
    `  data dir:       ${emulator.dataDir}`,
    '  users:',
    ...users,
    `  test hooks:     ${emulator.apiOrigin}/__emulator/ (counters, files, tokens, received, faults, config, revoke, webhooks)`,
    'Press Ctrl-C to stop.',
    ''
  ].join('\n')
}

async function main (): Promise<void> {
  let emulator: RunningEmulator
  try {
    emulator = await startEmulator(optionsFromEnv(process.env))
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`)
    process.exitCode = 1
    return
  }
  // Output may be piped into something that exits first (`| head`); stopping must still work.
  process.stdout.on('error', () => {})
  process.stdout.write(describe(emulator))
  let stopping = false
  const stop = (signal: string): void => {
    if (stopping) return
    stopping = true
    process.stdout.write(`${signal}: stopping the emulator\n`)
    emulator.stop().then(() => { process.exitCode = 0 }, (error: unknown) => {
      process.stderr.write(`could not stop cleanly: ${(error as Error).message}\n`)
      process.exitCode = 1
    })
  }
  // `on`, not `once`: a terminal's Ctrl-C reaches both tsx and this process, and tsx relays it
  // again; a repeated signal while stopping must not kill the process halfway.
  process.on('SIGINT', () => { stop('SIGINT') })
  process.on('SIGTERM', () => { stop('SIGTERM') })
}

await main()
