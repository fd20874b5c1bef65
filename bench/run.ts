// npm run bench [-- --quick] [-- --profile] [-- --only register,relay,tracing]: every benchmark of
// media-bff in one run (or the named ones), on loopback, driven from code. Prints the results as
// markdown and, when every scenario ran, writes them to bench/results.md. See bench/README.md for
// what is measured and how.
import { readFile, writeFile } from 'node:fs/promises'
import { loadavg } from 'node:os'
import { planFrom, type ScenarioName } from './lib/plan.js'
import { buildMediaBff } from './lib/build.js'
import { startBffStack, type BffStack } from './lib/stack.js'
import { startBenchRedis, type BenchRedis } from './lib/redis.js'
import { writtenProfiles } from './lib/profiling.js'
import { topSelfTime } from './lib/profile-top.js'
import { renderResults, type Results } from './lib/report.js'
import { hopScenario } from './scenarios/hop.js'
import { registerScenario } from './scenarios/register.js'
import { relayScenario } from './scenarios/relay.js'
import { tracingScenario } from './scenarios/tracing.js'
import { nodeVersionsScenario } from './scenarios/node-versions.js'
import { redisTripsScenario } from './scenarios/redis-trips.js'
import { sessionScenario } from './scenarios/session.js'
import { authCheckScenario } from './scenarios/auth-check.js'
import { stampedeScenario } from './scenarios/stampede.js'
import { idleMemoryScenario, redisMemoryScenario } from './scenarios/memory.js'
import { cpuScenario } from './scenarios/cpu.js'
import { liveChannelsScenario } from './scenarios/live-channels.js'
import { BENCH_WEBHOOK_KEY, webhooksScenario } from './scenarios/webhooks.js'
import { storeSizesScenario } from './scenarios/store-sizes.js'

// Ctrl-C or a kill still runs the exit handlers that stop redis-server (children follow on
// their own when the IPC channel closes).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130))

const plan = planFrom(process.argv.slice(2))
const started = performance.now()
const results: Results = { plan, startedAt: new Date(), seconds: 0, loadBefore: loadavg(), sessions: [], stampedes: [], profiles: [] }
const wants = (...names: ScenarioName[]): boolean => names.some((name) => plan.only.has(name))
const step = (what: string): void => { console.log(`[${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${what}`) }

const REDIS_PREFIX = 'bench:'
// gc() before each reading; the young generation pinned at V8's default ceiling (16 MB
// semi-spaces), so its growth under the sign-in burst, which a busy server has long since done
// and which is no per-session cost, does not land in the RSS figure.
const IDLE_MEMORY_FLAGS = ['--expose-gc', '--min-semi-space-size=16', '--max-semi-space-size=16']
const LIVE_HEARTBEAT_MS = 5_000
const LIVE_CHANNEL_ENV = { EVENTS_MAX_STREAMS: '100000', EVENTS_HEARTBEAT: `${LIVE_HEARTBEAT_MS / 1000}s`, RATE_LIMIT_EVENTS_PER_MINUTE: '1000000', RATE_LIMIT_LOGIN_PER_MINUTE: '1000000' }
// Only what the chosen scenarios need is started.
const needsMemory = wants('session', 'register', 'relay', 'cpu', 'stampede')
const needsRedis = wants('hop', 'session', 'auth-check', 'register', 'relay', 'redis-memory', 'redis-trips', 'stampede', 'webhooks', 'store-sizes')
const WEBHOOK_PREFIX = 'bench-webhooks:'
const WEBHOOK_ENV = { WEBHOOK_KEYS: BENCH_WEBHOOK_KEY, RATE_LIMIT_WEBHOOKS_PER_MINUTE: '100000000', OAUTH_SCOPES: 'basic user.info upload manage' }
step('building media-bff as it ships (npm run build)')
await buildMediaBff()
const redis: BenchRedis | undefined = needsRedis ? await startBenchRedis() : undefined
const none = Promise.resolve(undefined)
// Started together while nothing is measured (start-up is mostly loading code); each stack then
// idles until its turn. The idle-memory one is its own: the first ends up holding thousands of
// remembered registrations, which would blur a per-session figure.
const stacks = await Promise.allSettled([
  needsMemory ? startBffStack() : none,
  redis === undefined
    ? none
    : startBffStack({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: REDIS_PREFIX }).then(async (stack) => {
      // The second instance of the two-instance stampede.
      if (wants('stampede')) await stack.addInstance()
      return stack
    }),
  wants('idle-memory') ? startBffStack({}, {}, { nodeFlags: IDLE_MEMORY_FLAGS }) : none,
  // A stack of its own for the live channels: they stay open until it stops.
  wants('live-channels') ? startBffStack(LIVE_CHANNEL_ENV, {}, { nodeFlags: IDLE_MEMORY_FLAGS }) : none,
  // Webhooks: two instances on Redis, and one in memory for its accept rate.
  wants('webhooks') && redis !== undefined
    ? startBffStack({ ...WEBHOOK_ENV, REDIS_URL: redis.url, REDIS_KEY_PREFIX: WEBHOOK_PREFIX }).then(async (stack) => { await stack.addInstance(); return stack })
    : none,
  wants('webhooks') ? startBffStack(WEBHOOK_ENV) : none,
  // Its own: it adds the traced instances in front of its emulator.
  wants('tracing') ? startBffStack() : none
])
try {
  const [memoryStack, redisStack, idleStack, liveStack, webhookStack, webhookMemoryStack, tracingStack] = stacks.map((outcome) => {
    if (outcome.status === 'rejected') throw outcome.reason
    return outcome.value
  })
  const running = (stack: BffStack | undefined): BffStack => {
    if (stack === undefined) throw new Error('a scenario needs a stack that was not started')
    return stack
  }
  const memory = (): BffStack => running(memoryStack)
  const onRedis = (): BffStack => running(redisStack)

  if (wants('hop')) {
    step('register and the relayed listing beside the bare hop, both in front of a stub as cheap as the hop, memory and Redis, and with production\'s request logs')
    results.hop = await hopScenario(plan, redis?.url === undefined ? undefined : redis.url)
  }
  if (wants('session', 'register', 'relay', 'cpu')) step('in-memory store: GET /auth/session, POST /uploads/register, relayed GET /api/folders/0/contents, CPU per registration')
  if (wants('session')) results.sessions.push(await sessionScenario(memory(), 'memory', plan))
  if (wants('register')) results.register = await registerScenario(memory(), plan)
  if (wants('relay')) results.relay = await relayScenario(memory(), plan)
  if (wants('cpu')) results.cpu = await cpuScenario(memory(), plan)
  if (wants('tracing')) {
    step('tracing: register and the relay with tracing off, on (every trace) and on (1 in 10), beside the bare hop')
    results.tracing = await tracingScenario(running(tracingStack), plan)
  }

  if (wants('nodes')) {
    step('Node versions: register, the relay (tracing off and on) and GET /auth/session on the project\'s Node and the machine\'s own, each beside its bare references')
    results.nodes = await nodeVersionsScenario(plan, plan.compareNode)
  }

  if (wants('session', 'register', 'relay', 'redis-memory', 'redis-trips')) step('Redis store: GET /auth/session, POST /uploads/register, relayed GET /api/folders/0/contents, bytes per session and grant, commands per request')
  if (wants('session')) results.sessions.push(await sessionScenario(onRedis(), 'redis', plan))
  if (wants('auth-check')) {
    step('GET /auth/check on Redis, with the answer kept per session and without, beside a bare route')
    results.authCheck = await authCheckScenario(onRedis(), 'redis', plan)
  }
  if (wants('register')) results.registerOnRedis = await registerScenario(onRedis(), plan, 'redis')
  if (wants('relay')) results.relayOnRedis = await relayScenario(onRedis(), plan, 'redis')
  if (wants('redis-memory') && redis !== undefined) results.redisMemory = await redisMemoryScenario(onRedis(), redis, REDIS_PREFIX, plan.redisSessions)
  if (wants('redis-trips') && redis !== undefined) results.redisTrips = await redisTripsScenario(onRedis(), redis, plan.redisTripRequests)

  if (wants('stampede')) {
    step(`refresh stampedes of ${plan.stampede.join(' and ')} requests, one instance, then two over Redis`)
    results.stampedes.push(...await stampedeScenario(memory(), plan.stampede, 1))
    results.stampedes.push(...await stampedeScenario(onRedis(), plan.stampede, 2))
  }

  if (wants('idle-memory')) {
    step(`RSS of ${plan.idleSessions} idle in-memory sessions`)
    results.idleMemory = await idleMemoryScenario(running(idleStack), plan.idleSessions)
  }
  if (wants('live-channels')) {
    step(`${plan.liveChannels} live channels open on one instance`)
    results.liveChannels = await liveChannelsScenario(running(liveStack), plan.liveChannels, LIVE_HEARTBEAT_MS, { nodeFlags: IDLE_MEMORY_FLAGS })
  }
  if (wants('webhooks') && redis !== undefined) {
    step(`webhooks: accepted per second, then ${plan.webhooks.samples} webhook-to-page trips across two instances and ${plan.webhooks.kills} with the instance that took the follow-up killed`)
    results.webhooks = await webhooksScenario(running(webhookStack), redis, WEBHOOK_PREFIX, running(webhookMemoryStack).bff.url, plan.webhooks)
  }
  if (wants('store-sizes') && redis !== undefined) {
    step(`store families filled to their bounds (MEMORY_MAX_SESSIONS=${plan.storeSizes.maxSessions}), and bytes per unit on Redis`)
    results.storeSizes = await storeSizesScenario(redis, plan.storeSizes.maxSessions, plan.storeSizes.redisUnits)
  }
} finally {
  for (const outcome of stacks) if (outcome.status === 'fulfilled') await outcome.value?.stop()
  await redis?.stop()
}

for (const profile of writtenProfiles) {
  results.profiles.push({ ...profile, top: (await topSelfTime(profile.file, 12)).functions })
}
results.seconds = (performance.now() - started) / 1000
const analysis = await readFile(new URL('./analysis.md', import.meta.url), 'utf8').catch(() => undefined)
const markdown = renderResults(results, analysis)
if (plan.partial) {
  // Some scenarios left out: results.md keeps the last complete run.
  step(`done (${[...plan.only].join(', ')} only; bench/results.md left as it is)`)
} else {
  await writeFile(new URL('./results.md', import.meta.url), markdown)
  step('done; written to bench/results.md')
}
console.log(`\n${markdown}`)
