// The emulator as a program: started with `npx tsx emulator/cli.ts` and EMULATOR_* ports,
// it prints its origins and credentials; the curl flow of emulator/README.md (register ->
// upload -> finish with alice's private token) is run with the real curl; SIGTERM stops it with
// exit code 0.
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'
import { request } from 'undici'
import { stopChild, waitForOutput } from '../helpers/child-process.js'
import { freePort } from '../helpers/ports.js'
import { requireProgram } from '../helpers/programs.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const run = promisify(execFile)

// The emulator README's curl commands, read from the README itself so the two can never drift:
// the lines of its "Upload with curl" block from the registration on.
const readmeFlow = await readReadmeFlow()

async function readReadmeFlow (): Promise<string> {
  const readme = await readFile(join(root, 'emulator', 'README.md'), 'utf8')
  const block = /## Upload with curl[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1]
  if (block === undefined) throw new Error('emulator/README.md has no "Upload with curl" sh block')
  const lines = block.split('\n')
  return lines.slice(lines.findIndex((line) => line.startsWith('REG='))).join('\n')
}

async function ports (): Promise<[number, number]> {
  const api = await freePort()
  let upload = await freePort()
  while (upload === api) upload = await freePort()
  return [api, upload]
}

interface Started { child: ChildProcess, stdout: string, apiOrigin: string, uploadOrigin: string, aliceToken: string }

async function startProgram (command: string, args: string[], env: Record<string, string>, options: { ownGroup?: boolean } = {}): Promise<Started> {
  const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: options.ownGroup === true })
  const stdout = await waitForOutput(child, (text) => text.includes('Press Ctrl-C'), 30_000)
  const field = (pattern: RegExp): string => {
    const match = pattern.exec(stdout)
    if (match === null) throw new Error(`not in the output: ${pattern.source}\n${stdout}`)
    return match[1] as string
  }
  return {
    child,
    stdout,
    apiOrigin: field(/API origin:\s+(\S+)/),
    uploadOrigin: field(/upload origin:\s+(\S+)/),
    aliceToken: field(/alice[\s\S]*?private token: (\S+)/)
  }
}

t.test('npx tsx emulator/cli.ts serves the README curl flow and stops on SIGTERM', async (t) => {
  const curl = requireProgram('curl')
  const [apiPort, uploadPort] = await ports()
  // Its own process group, so SIGTERM reaches npx and the emulator under it, as a terminal's would.
  const started = await startProgram('npx', ['tsx', 'emulator/cli.ts'], {
    EMULATOR_API_PORT: String(apiPort),
    EMULATOR_UPLOAD_PORT: String(uploadPort),
    EMULATOR_CLIENT_SECRET: 'cli-test-secret'
  }, { ownGroup: true })
  const { child, stdout } = started
  t.teardown(async () => { if (child.exitCode === null && child.signalCode === null) process.kill(-(child.pid as number), 'SIGKILL') })
  t.equal(started.apiOrigin, `http://127.0.0.1:${apiPort}`)
  t.equal(started.uploadOrigin, `http://127.0.0.1:${uploadPort}`)
  t.match(stdout, /client id:\s+media-bff-demo/)
  t.match(stdout, /client secret:\s+cli-test-secret/)
  t.match(stdout, /redirect URI:\s+http:\/\/localhost:3000\/auth\/callback/)
  t.match(stdout, /alice\s+Alice Example <alice@example.test>\s+scopes: basic user.info manage upload share/)
  t.match(stdout, /bob\s+Bob Example <bob@example.test>\s+scopes: basic user.info\s/)

  const work = await mkdtemp(join(tmpdir(), 'emulator-cli-'))
  t.teardown(async () => { await rm(work, { recursive: true, force: true }) })
  const photo = Buffer.from('not really a JPEG, but bytes all the same\n')
  await writeFile(join(work, 'photo.jpg'), photo)
  const { stdout: flow } = await run('bash', ['-euo', 'pipefail', '-c', readmeFlow], {
    cwd: work,
    env: { ...process.env, TOKEN: started.aliceToken, API: started.apiOrigin, PATH: `${join(curl, '..')}:${process.env.PATH ?? ''}` }
  })
  const [registration, upload, finish] = flow.trim().split('\n').map((line) => JSON.parse(line) as Record<string, any>)
  t.match(registration, { ulid: /^[0-9A-Z]{26}$/, url_upload_direct: new RegExp(`^http://127\\.0\\.0\\.1:${uploadPort}/upload/`) })
  t.match(upload, { status: 'success', file_id: Number, title: 'My photo' })
  t.match(finish, { status: 'success', files: [{ file_id: upload?.file_id, title: 'My photo', filename: 'photo.jpg', size: photo.length }] })
  const files = await request(`${started.apiOrigin}/__emulator/files`)
  t.match(await files.body.json(), { files: [{ name: 'photo.jpg', sha256: createHash('sha256').update(photo).digest('hex') }] })

  let rest = ''
  child.stdout?.on('data', (chunk: Buffer) => { rest += chunk.toString() })
  // 'close' waits for every process holding the output pipe: npx and the emulator under it.
  const closed = new Promise<void>((resolve) => child.once('close', () => { resolve() }))
  process.kill(-(child.pid as number), 'SIGTERM')
  await closed
  t.match(rest, /SIGTERM: stopping the emulator/)
  await t.rejects(request(`${started.apiOrigin}/__emulator/counters`), 'the API origin is closed')
  await t.rejects(request(`${started.uploadOrigin}/`), 'the upload origin is closed')
})

t.test('the emulator itself exits 0 on SIGTERM and on SIGINT', async (t) => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    const [apiPort, uploadPort] = await ports()
    // node itself, with tsx as a loader: the tsx command would stand between the signal and the
    // emulator, and it kills a child that has not answered a relayed signal within 30 ms, which
    // a loaded machine can miss (exit 130 instead of the emulator's own 0).
    const { child } = await startProgram(process.execPath, ['--import', 'tsx', 'emulator/cli.ts'], {
      EMULATOR_API_PORT: String(apiPort), EMULATOR_UPLOAD_PORT: String(uploadPort)
    })
    t.teardown(async () => { await stopChild(child, 'SIGKILL') })
    t.equal(await stopChild(child, signal), 0, signal)
  }
})

t.test('bad EMULATOR_* variables are named and exit 1', async (t) => {
  const child = spawn(join(root, 'node_modules', '.bin', 'tsx'), ['emulator/cli.ts'], {
    cwd: root,
    env: { ...process.env, EMULATOR_API_PORT: 'abc', EMULATOR_ROTATE_REFRESH_TOKENS: 'maybe', EMULATOR_ACCESS_TOKEN_TTL: '-5' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const code = await new Promise((resolve) => child.once('exit', resolve))
  t.equal(code, 1)
  t.match(stderr, /EMULATOR_API_PORT/)
  t.match(stderr, /EMULATOR_ROTATE_REFRESH_TOKENS/)
  t.match(stderr, /EMULATOR_ACCESS_TOKEN_TTL/)
})

t.test('the compiled cli.js runs under plain node', async (t) => {
  const out = await mkdtemp(join(tmpdir(), 'emulator-build-'))
  t.teardown(async () => { await rm(out, { recursive: true, force: true }) })
  // Compiles the emulator alone, with the repository's module settings, as `npm run build` would.
  await run(join(root, 'node_modules', '.bin', 'tsc'), [
    '--ignoreConfig', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--strict',
    '--skipLibCheck', '--types', 'node', '--rootDir', root, '--outDir', out, join(root, 'emulator', 'cli.ts')
  ], { cwd: root })
  await writeFile(join(out, 'package.json'), '{ "type": "module" }\n')
  await symlink(join(root, 'node_modules'), join(out, 'node_modules'), 'dir')
  const [apiPort, uploadPort] = await ports()
  const started = await startProgram(process.execPath, [join(out, 'emulator', 'cli.js')], {
    EMULATOR_API_PORT: String(apiPort), EMULATOR_UPLOAD_PORT: String(uploadPort), EMULATOR_PRIVATE_TOKENS: 'alice=alice-fixed-token'
  })
  t.teardown(async () => { await stopChild(started.child, 'SIGKILL') })
  t.equal(started.aliceToken, 'alice-fixed-token', 'EMULATOR_PRIVATE_TOKENS fixes the tokens')
  const info = await request(`${started.apiOrigin}/api/user/info`, { headers: { authorization: 'Private-Token alice-fixed-token' } })
  t.match(await info.body.json(), { name: 'Alice Example' })
  t.equal(await stopChild(started.child, 'SIGTERM'), 0)
})
