// Names set for media-bff that it never reads (src/config/names.ts): a misspelt variable is
// named at start with the one meant, from the environment as a warning and from the file of
// variables as an error in production; everyone else's variables are left alone.
import t from 'tap'
import fc from 'fast-check'
import { unknownNames } from '../../src/config/names.js'
import { ConfigError, loadConfig } from '../../src/config/config.js'
import { FILE_VARIABLES, KNOWN_NAMES } from '../../src/config/variables.js'
import { validEnv } from '../helpers/config-env.js'

const fileOnly = new Set(FILE_VARIABLES)
const meant = (name: string): string | undefined => unknownNames([name], KNOWN_NAMES, fileOnly)[0]?.meant
const flagged = (name: string): boolean => unknownNames([name], KNOWN_NAMES, fileOnly).length > 0

t.test('a misspelt, lower-case or lengthened name is named with the one meant', async (t) => {
  t.equal(meant('SESSION_IDLE_TIMOUT'), 'SESSION_IDLE_TIMEOUT', 'a letter left out')
  t.equal(meant('SESION_SECRETS'), 'SESSION_SECRETS')
  t.equal(meant('OAUTH_CLEINT_ID'), 'OAUTH_CLIENT_ID', 'two letters swapped')
  t.equal(meant('REDIS_URI'), 'REDIS_URL', 'a letter replaced')
  t.equal(meant('session_idle_timeout'), 'SESSION_IDLE_TIMEOUT', 'lower case')
  t.equal(meant('SESSION_IDLE_TIMEOUT_MS'), 'SESSION_IDLE_TIMEOUT', 'words added after')
  t.equal(meant('MEDIA_BFF_PUBLIC_URL'), 'PUBLIC_URL', 'the project\'s name put before')
  t.equal(meant('OAUTH_CLIENT_ID_FILE'), 'OAUTH_CLIENT_ID', 'NAME_FILE of what cannot come from a file')
  t.match(unknownNames(['OAUTH_CLIENT_ID_FILE'], KNOWN_NAMES, fileOnly)[0]?.message, /OAUTH_CLIENT_ID cannot come from a file \(only .*OAUTH_CLIENT_SECRET/)
})

t.test('a name that starts as only media-bff\'s do is named, with that family', async (t) => {
  const [found] = unknownNames(['REDIS_HOST'], KNOWN_NAMES, fileOnly)
  t.equal(found?.meant, undefined)
  t.match(found?.message, 'is not a variable media-bff reads (its REDIS_ variables: REDIS_URL, REDIS_PASSWORD, REDIS_KEY_PREFIX, REDIS_TLS_CA_FILE)')
  for (const name of ['RATE_LIMIT_UPLOADS_PER_HOUR', 'WEBHOOK_SECRET', 'MEDIA_BFF_ANYTHING', 'OAUTH_AUDIENCE']) t.ok(flagged(name), name)
})

t.test('everyone else\'s variables are left alone', async (t) => {
  const theirs = [
    'PATH', 'HOME', 'HOSTNAME', 'TERM', 'LANG', 'PWD', 'SHLVL', 'TZ', 'CI', 'NODE_OPTIONS', 'NODE_PATH',
    'npm_config_cache', 'npm_lifecycle_event', 'SESSION_MANAGER', 'OTEL_LOG_LEVEL', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
    'OTEL_METRICS_EXPORTER', 'OTEL_LOGS_EXPORTER', 'OTEL_PROPAGATORS',
    // Kubernetes' service links, for a Service named redis, media and media-bff.
    'REDIS_PORT', 'REDIS_SERVICE_HOST', 'REDIS_SERVICE_PORT', 'REDIS_SERVICE_PORT_REDIS', 'REDIS_PORT_6379_TCP',
    'REDIS_PORT_6379_TCP_ADDR', 'REDIS_PORT_6379_TCP_PROTO', 'MEDIA_PORT', 'MEDIA_BFF_SERVICE_HOST', 'MEDIA_BFF_PORT_3000_TCP_PORT',
    'KUBERNETES_SERVICE_HOST', 'KUBERNETES_PORT_443_TCP'
  ]
  t.same(unknownNames(theirs, KNOWN_NAMES, fileOnly), [])
  t.same(unknownNames([...KNOWN_NAMES], KNOWN_NAMES, fileOnly), [], 'every known name, NAME_FILE included, is known')
})

t.test('property: a name one edit away from a known one of 8 characters or more is named', async (t) => {
  const long = [...KNOWN_NAMES].filter((name) => name.length >= 8)
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ_'
  fc.assert(fc.property(fc.constantFrom(...long), fc.nat(), fc.constantFrom(...letters), fc.constantFrom('insert', 'delete', 'replace', 'swap'), (name, at, letter, edit) => {
    const i = at % name.length
    const typo = edit === 'insert'
      ? name.slice(0, i) + letter + name.slice(i)
      : edit === 'delete'
        ? name.slice(0, i) + name.slice(i + 1)
        : edit === 'replace'
          ? name.slice(0, i) + letter + name.slice(i + 1)
          : name.slice(0, i) + (name[i + 1] ?? '') + name[i] + name.slice(i + 2)
    if (KNOWN_NAMES.has(typo)) return true
    const found = unknownNames([typo], KNOWN_NAMES, fileOnly)[0]
    return found !== undefined && found.meant !== undefined && KNOWN_NAMES.has(found.meant)
  }), { numRuns: 3000 })
  t.pass('3000 generated typos')
})

t.test('at start: a warning from the environment, an error from the file in production', async (t) => {
  const config = loadConfig({ ...validEnv, SESSION_IDLE_TIMOUT: '5m' })
  t.same(config.warnings, ['SESSION_IDLE_TIMOUT: is not a variable media-bff reads; did you mean SESSION_IDLE_TIMEOUT? (set in the environment)'])
  t.equal(config.session.idleTimeoutMs, 2 * 3_600_000, 'the default stands, and the warning says why')

  const file = { path: '/etc/media-bff/media-bff.env', taken: ['SESSION_IDLE_TIMOUT', 'GREETING'] }
  const lenient = loadConfig({ ...validEnv, SESSION_IDLE_TIMOUT: '5m', GREETING: 'hello' }, { file })
  t.same(lenient.warnings, [
    'SESSION_IDLE_TIMOUT: is not a variable media-bff reads; did you mean SESSION_IDLE_TIMEOUT? (set in /etc/media-bff/media-bff.env)',
    'GREETING: is not a variable media-bff reads (set in /etc/media-bff/media-bff.env)'
  ], 'outside production the file\'s names are warnings, and any other name there is said too')

  const production = { ...validEnv, NODE_ENV: 'production', UPLOAD_ALLOWED_HOSTS: 'upload.media.example', SESSION_IDLE_TIMOUT: '5m', GREETING: 'hello' }
  const refused = (() => {
    try {
      loadConfig(production, { file })
    } catch (error) {
      if (error instanceof ConfigError) return error.problems
    }
    return []
  })()
  t.same(refused, ['SESSION_IDLE_TIMOUT: is not a variable media-bff reads; did you mean SESSION_IDLE_TIMEOUT? (set in /etc/media-bff/media-bff.env)'], 'in production the file\'s misspelt name stops the start; the other name stays a warning')
  t.doesNotThrow(() => loadConfig({ ...production }, { file: { ...file, taken: ['GREETING'] } }), 'the misspelt name from the environment stays a warning in production')
  t.same(loadConfig(validEnv, { alsoKnown: ['EMULATOR_API_PORT'] }).warnings, [])
  t.same(loadConfig({ ...validEnv, EMULATOR_API_PORT: '4000' }, { alsoKnown: ['EMULATOR_API_PORT'] }).warnings, [], 'what something else in the process reads is known')
})
