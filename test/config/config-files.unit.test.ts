// NAME_FILE for every secret (and REDIS_URL): the value read from a file, as Docker and
// Kubernetes mount secrets, and every way that can go wrong named without the file's content.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { FILE_VARIABLES, loadConfig, SECRET_VARIABLES, type Config } from '../../src/config/config.js'
import { problemsOf, validEnv as valid } from '../helpers/config-env.js'
import { testAssertionKey } from '../helpers/secrets.js'

const dir = await mkdtemp(join(tmpdir(), 'media-bff-config-files-'))
t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })

let written = 0
/** A new file holding `text`; its path. */
const file = async (text: string): Promise<string> => {
  written += 1
  const path = join(dir, `value-${written}`)
  await writeFile(path, text)
  return path
}

const assertionKey = testAssertionKey('file1')

/** For each variable a file may give: a value to write, and where the configuration shows it. */
const examples: Record<string, { value: string, seen: (config: Config) => unknown, expected: unknown, env?: Record<string, string> }> = {
  SESSION_SECRETS: { value: 'from-a-file-'.repeat(3), seen: (config) => config.session.secrets, expected: ['from-a-file-'.repeat(3)] },
  TOKEN_KEYS: { value: `file1:${Buffer.alloc(32, 3).toString('base64')}`, seen: (config) => config.tokenKeys.map((key) => key.id), expected: ['file1'] },
  OAUTH_CLIENT_SECRET: { value: 'client secret from a file', seen: (config) => config.oauth.clientSecret, expected: 'client secret from a file' },
  METRICS_TOKEN: { value: 'm'.repeat(40), seen: (config) => config.metricsToken, expected: 'm'.repeat(40) },
  OPERATOR_TOKEN: { value: 'o'.repeat(40), seen: (config) => config.operatorToken, expected: 'o'.repeat(40) },
  WEBHOOK_KEYS: { value: 'w'.repeat(20), seen: (config) => config.webhooks.keys.get('default'), expected: ['w'.repeat(20)] },
  ASSERTION_KEYS: { value: assertionKey, seen: (config) => config.assertions.keys.map((key) => key.id), expected: ['file1'] },
  REDIS_URL: { value: 'redis://:pass-word@redis.internal:6379/2', seen: (config) => config.redisUrl, expected: 'redis://:pass-word@redis.internal:6379/2' },
  REDIS_PASSWORD: { value: 'pass-word', seen: (config) => config.redisUrl, expected: 'redis://:pass-word@redis.internal:6379/2', env: { REDIS_URL: 'redis://redis.internal:6379/2' } }
}

t.test('every secret, and REDIS_URL, may come from a file', async (t) => {
  t.same(FILE_VARIABLES.filter((name) => examples[name] === undefined), [], 'each has an example here')
  t.ok(SECRET_VARIABLES.every((name) => (FILE_VARIABLES as readonly string[]).includes(name)), 'every secret is among them')
  for (const name of FILE_VARIABLES) {
    const example = examples[name]
    if (example === undefined) continue
    const env: Record<string, string> = { ...valid, ...example.env, [`${name}_FILE`]: await file(`${example.value}\n`) }
    delete env[name]
    t.same(example.seen(loadConfig(env)), example.expected, `${name}_FILE: the file's value, without its trailing newline`)
  }
})

t.test('production starts with every secret from a file', async (t) => {
  const env: Record<string, string> = { ...valid, NODE_ENV: 'production', UPLOAD_ALLOWED_HOSTS: 'upload.media.example', REDIS_URL: 'redis://redis.internal:6379/2' }
  for (const name of SECRET_VARIABLES) {
    delete env[name]
    env[`${name}_FILE`] = await file(`${examples[name]?.value ?? ''}\r\n`)
  }
  const config = loadConfig(env)
  t.same(config.session.secrets, examples.SESSION_SECRETS?.expected, 'a Windows line ending is dropped too')
  t.equal(config.oauth.clientSecret, examples.OAUTH_CLIENT_SECRET?.expected)
})

t.test('NAME and NAME_FILE both set are refused, naming both', async (t) => {
  const problems = problemsOf({ ...valid, SESSION_SECRETS_FILE: await file('b'.repeat(32)) })
  t.same(problems, ['SESSION_SECRETS: is set and so is SESSION_SECRETS_FILE; set only one of them'])
  t.same(problemsOf({ ...valid, SESSION_SECRETS: ' ', SESSION_SECRETS_FILE: await file('b'.repeat(32)) }), [], 'a blank NAME is unset, as everywhere')
})

t.test('a file that cannot be read is refused, naming the variable and the file', async (t) => {
  const missing = join(dir, 'no-such-file')
  const env: Record<string, string> = { ...valid, OAUTH_CLIENT_SECRET_FILE: missing, TOKEN_KEYS_FILE: dir }
  delete env.OAUTH_CLIENT_SECRET
  delete env.TOKEN_KEYS
  t.same(problemsOf(env).sort(), [
    `OAUTH_CLIENT_SECRET_FILE: ${missing} cannot be read (ENOENT)`,
    `TOKEN_KEYS_FILE: ${dir} cannot be read (EISDIR)`
  ], 'a directory is no file; and neither variable is then "required" as well')
})

t.test('an empty file, or one of several lines, is refused without echoing it', async (t) => {
  const env: Record<string, string> = { ...valid }
  delete env.SESSION_SECRETS
  const empty = await file('\n')
  t.same(problemsOf({ ...env, SESSION_SECRETS_FILE: empty }), [`SESSION_SECRETS_FILE: ${empty} is empty`], 'the one problem, not SESSION_SECRETS "is required" as well')
  const lines = await file(`${'first-secret-'.repeat(3)}\n${'second-secret-'.repeat(3)}\n`)
  const problems = problemsOf({ ...env, SESSION_SECRETS_FILE: lines })
  t.same(problems, [`SESSION_SECRETS_FILE: ${lines} holds more than one line; write the value on one line (several values as a comma list)`])
  t.notOk(problems.join('\n').includes('first-secret'), 'the content is not echoed')
})

t.test('a file holding the command that makes the secret is refused, as the variable is', async (t) => {
  const command = '$(openssl rand -hex 32)'
  const problems = problemsOf({ ...valid, METRICS_TOKEN_FILE: await file(`${command}\n`) })
  t.ok(problems.some((problem) => problem.startsWith('METRICS_TOKEN: holds a shell command that was never run')), problems.join('; '))
  t.notOk(problems.join('\n').includes(command))
})
