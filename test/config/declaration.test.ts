// Each variable is declared once (src/config/variables.ts): validation takes its defaults and
// bounds from there, and `.env.example` and the docs' configuration reference are written from
// it. These tests fail when any copy is changed alone: a written file edited by hand or not
// written again, a default or bound in code that is not the declared one, a variable read that
// is not declared or declared that nothing reads.
import { readFile, writeFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { readConfig, loadConfig } from '../../src/config/config.js'
import { configurationReference, envExample } from '../../src/config/describe.js'
import { declared, VARIABLES } from '../../src/config/variables.js'
import { MAX_SLOTS } from '../../src/sign-in/login-transactions.js'
import { withEnvFile } from '../../src/config/env-file.js'
import { problemsOf, validEnv } from '../helpers/config-env.js'

const root = new URL('../../', import.meta.url)

/** The first line where `actual` differs from `expected`, or undefined when they are the same. */
function firstDifference (actual: string, expected: string): string | undefined {
  if (actual === expected) return undefined
  const a = actual.split('\n')
  const e = expected.split('\n')
  const line = a.findIndex((text, index) => text !== e[index])
  const at = line < 0 ? a.length : line
  return `line ${at + 1}: has ${JSON.stringify(a[at])}, the declaration makes ${JSON.stringify(e[at])}`
}

t.test('the written files are what the declaration makes (npm run generate writes them)', async (t) => {
  for (const [file, make] of [['.env.example', envExample], ['docs/reference/configuration.md', configurationReference]] as const) {
    const written = await readFile(new URL(file, root), 'utf8')
    t.equal(firstDifference(written, make()), undefined, `${file} is up to date`)
  }
  // The comparison itself sees a change of one copy alone.
  const edited = envExample().replace('SESSION_IDLE_TIMEOUT=2h', 'SESSION_IDLE_TIMEOUT=3h')
  t.match(firstDifference(edited, envExample()), /has "SESSION_IDLE_TIMEOUT=3h", the declaration makes "SESSION_IDLE_TIMEOUT=2h"/)
})

/** An environment that takes every reader down every path that reads a variable. */
function everything (dir: string): Record<string, string> {
  return {
    ...validEnv,
    REDIS_URL: 'rediss://redis.example:6380',
    REDIS_TLS_CA_FILE: join(dir, 'ca.pem'),
    REDIS_PASSWORD: 'a-password-of-its-own',
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector.example:4318',
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    WEBHOOK_KEYS: 'k'.repeat(16)
  }
}

t.test('every variable the configuration reads is declared, and every declared one is read', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'media-bff-declaration-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  await writeFile(join(dir, 'ca.pem'), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n')
  // Reading an undeclared variable throws (src/config/declared-reader.ts): this would have thrown.
  const { read } = readConfig(everything(dir))
  const unread = VARIABLES.filter((variable) => variable.readBy === undefined && !read.has(variable.name)).map((variable) => variable.name)
  t.same(unread, [], 'declared and read by the configuration')
  // ENV_FILE is read before the rest, to find the file.
  const named = join(dir, 'vars.env')
  await writeFile(named, 'OAUTH_SCOPES=basic\n')
  t.equal(withEnvFile({ ENV_FILE: named }).file, named)
  t.same(VARIABLES.filter((variable) => variable.readBy === 'env-file').map((variable) => variable.name), ['ENV_FILE'])
})

/** With tracing on, so its variables are read too. */
const traced = { ...validEnv, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector.example:4318' }

t.test('each default in force is the declared one', async (t) => {
  const base = loadConfig(traced)
  for (const variable of VARIABLES) {
    if (variable.default === undefined || variable.readBy !== undefined || variable.name in traced) continue
    const setToDefault = loadConfig({ ...traced, [variable.name]: variable.default })
    t.same(setToDefault, base, `${variable.name} unset is ${variable.name}=${variable.default}`)
  }
})

t.test('each declared bound is the one enforced', async (t) => {
  t.equal(declared('LOGIN_MAX_PER_BROWSER').max, MAX_SLOTS, 'the login cookie\'s slots')
  for (const variable of VARIABLES) {
    if (variable.type !== 'integer' || variable.readBy !== undefined) continue
    for (const [bound, outside] of [[variable.min, -1], [variable.max, 1]] as const) {
      if (bound === undefined) continue
      // Its bounds only: OTEL_BSP_MAX_QUEUE_SIZE=1 is under the batch size left at its default,
      // which is another rule.
      t.same(problemsOf({ ...traced, [variable.name]: String(bound) }).filter((problem) => problem.startsWith(`${variable.name}: must be a whole number`)), [], `${variable.name}=${bound} is taken`)
      if (bound + outside < 0) continue
      t.match(problemsOf({ ...traced, [variable.name]: String(bound + outside) }), [new RegExp(`^${variable.name}: must be a whole number from`)], `${variable.name}=${bound + outside} is refused`)
    }
  }
  for (const variable of VARIABLES) {
    if (variable.type !== 'duration' || variable.min === undefined || variable.max === undefined) continue
    t.same(problemsOf({ ...traced, [variable.name]: `${variable.min / 1000}` }), [], `${variable.name} at its least`)
    t.match(problemsOf({ ...traced, [variable.name]: `${variable.max / 1000 + 1}` }), [new RegExp(`^${variable.name}: must be between`)], `${variable.name} past its most`)
  }
  for (const variable of VARIABLES) {
    if (variable.type !== 'choice' || variable.readBy !== undefined || variable.name.startsWith('OTEL_EXPORTER')) continue
    t.match(problemsOf({ ...traced, [variable.name]: 'nonsense' }), [new RegExp(`^${variable.name}: must be one of ${(variable.choices ?? []).join(', ')}`)], `${variable.name} takes only its choices`)
  }
})
