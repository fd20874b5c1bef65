// The alerts and the dashboard against what media-bff really exports: a real Prometheus (Debian's
// package), configured from docker/prometheus/prometheus.yml, scrapes the two replicas of the
// production stack with the metrics token from a file and evaluates docker/prometheus/alerts.yml
// every second. After a real flow (sign-in, a relayed call, token refreshes, an upload registered and finished,
// live channels until one is refused for want of room, the service's webhook and its follow-up),
// every metric and label the rules and the dashboard name is in the replicas' /metrics; each
// dashboard query is valid PromQL to Prometheus, and returns data wherever the flow made its
// series; every rule evaluates without error and the only alert it raised is the refused
// channel's. Then Redis stops and a replica stops, and their alerts go pending for real.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { uploadDirect } from '../helpers/direct-upload.js'
import { openChannel, type OpenChannel } from '../helpers/event-stream.js'
import { startPrometheus } from '../helpers/prometheus-server.js'
import { signIn } from '../helpers/sign-in.js'
import { alertsFile, dashboardQueries, readAlertRules, readDashboard, readPrometheusConfig, withVariables } from './monitoring-files.js'
import { scrape, type Scrape } from './prometheus.js'
import { selectorsOf } from './promql.js'
import { startProductionStack } from './stack.js'

const WEBHOOK_KEY = 'production-webhook-key-0123456789'
const ACCESS_TOKEN_TTL_S = 2
// One live channel per replica: a page's third one is refused (instance_full), for real. Access
// tokens due for refresh a second after they are issued: the flow refreshes too.
// Files stay processing until the flow lets them go, after their finish: a webhook saying a file
// is ready before the finish was remembered would find nobody to tell.
const stack = await startProductionStack(t, { env: { WEBHOOK_KEYS: WEBHOOK_KEY, EVENTS_MAX_STREAMS: '1' }, emulator: { processingMs: 3_600_000, accessTokenTtl: ACCESS_TOKEN_TTL_S } })
const [replicaA, replicaB] = stack.replicas as [typeof stack.replicas[0], typeof stack.replicas[0]]
const instanceOf = (replica: typeof replicaA): string => `127.0.0.1:${replica.port}`

// The example configuration as shipped (its job, the token from a file), with this stack's
// replicas as targets and every interval a second, so the test needs seconds, not minutes.
const shipped = await readPrometheusConfig()
const [job] = shipped.scrape_configs
if (job === undefined) throw new Error('prometheus.yml has no scrape job')
const prometheus = await startPrometheus(async (dir) => {
  const tokenFile = join(dir, 'metrics-token')
  await writeFile(tokenFile, stack.metricsToken)
  return {
    ...shipped,
    global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
    rule_files: [alertsFile],
    scrape_configs: [{ ...job, static_configs: [{ targets: stack.replicas.map(instanceOf) }], authorization: { credentials_file: tokenFile } }]
  }
})
t.teardown(prometheus.stop)

const rules = await readAlertRules()
const dashboard = await readDashboard()
const variables = { job: job.job_name, instance: '.+', rateInterval: '1m' }

interface Target { labels: Record<string, string>, health: string, lastScrape: string, lastError: string }
interface Rule { name: string, state: string, health: string, lastError?: string, lastEvaluation: string, alerts: Array<{ labels: Record<string, string>, state: string }> }
const targets = async (): Promise<Target[]> => (await prometheus.api<{ activeTargets: Target[] }>('/api/v1/targets')).activeTargets
const alertRules = async (): Promise<Rule[]> => (await prometheus.api<{ groups: Array<{ rules: Rule[] }> }>('/api/v1/rules?type=alert')).groups.flatMap((group) => group.rules)
/** Active alerts as `name instance state`, sorted. */
const activeAlerts = async (): Promise<string[]> => (await alertRules()).flatMap((rule) => rule.alerts.map((alert) => `${rule.name} ${alert.labels.instance ?? '-'} ${alert.state}`)).sort()

const until = async <T>(what: string, read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 15_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs
  let value = await read()
  while (!check(value)) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms; last: ${JSON.stringify(value)}`)
    await sleep(200)
    value = await read()
  }
  return value
}

// Filled by the flow below: when it ended, the replicas' /metrics right after.
let flowDone = Infinity
let scrapes: Scrape[] = []

t.test('a flow through nginx, as browsers and the media service make it', async (t) => {
  // Prometheus watches before anything happens, as in production: a counter's first step is an
  // increase only to a Prometheus that saw it at zero.
  await until('a first scrape of both replicas', targets, (all) => all.length === 2 && all.every((target) => target.health === 'up'))
  const browser = stack.browser()
  await signIn(browser)
  const signedInAt = Date.now()
  const channels: OpenChannel[] = []
  let refused = 0
  while (refused === 0 && channels.length < 4) {
    const channel = await openChannel(browser)
    if (channel.status === 200) channels.push(channel)
    else if (channel.status === 503 && channel.refusal?.error === 'unavailable') refused++
    else throw new Error(`GET /events answered ${channel.status}: ${JSON.stringify(channel.refusal)}`)
  }
  t.equal(refused, 1, `a live channel refused once ${channels.length} were open, one per replica`)
  stack.emulator.addWebhook({ user: 'alice', url: `${replicaB.url}/webhooks/media`, key: WEBHOOK_KEY })
  // The access token is due now (half its life): the relayed call refreshes it first.
  await sleep(signedInAt + ACCESS_TOKEN_TTL_S * 500 + 200 - Date.now())
  t.equal((await browser.get('/api/folders/0/contents')).status, 200, 'a relayed call')
  const registered = await browser.post('/uploads/register', { folder_id: 0, title: 'Watched' })
  t.equal(registered.status, 200, registered.text)
  const record = registered.json()
  t.equal((await uploadDirect(record.url_upload_direct, 'watched.mp4', 'video')).status, 200)
  t.equal((await browser.post(record.finish_url)).status, 200, 'an upload finished')
  // finished, then the service's webhook followed up (the file ready): both through the channel.
  await channels[0]?.waitFor('file', 1)
  stack.emulator.configure({ processingMs: 0 })
  t.match(await channels[0]?.waitFor('file', 2), [{ event: 'finished' }, { event: 'file_transcode', status: 'ready' }], 'the finish and the webhook reached the page')
  for (const channel of channels) channel.close()
  flowDone = Date.now()
  scrapes = await Promise.all(stack.replicas.map(async (replica) => await scrape(replica.url, stack.metricsToken)))
  // Rates need two samples of a series: wait until Prometheus scraped both replicas twice since.
  const scrapedSince = async (): Promise<string[]> => (await prometheus.query(`count_over_time(up{job="media-bff"}[${Math.max(1, Math.floor((Date.now() - flowDone) / 1000))}s])`)).map((sample) => sample.value[1])
  await until('two scrapes of both replicas after the flow', scrapedSince, (counts) => counts.length === 2 && counts.every((count) => Number(count) >= 2))
})

t.test('Prometheus scrapes both replicas as prometheus.yml says, the token read from a file', async (t) => {
  const all = await targets()
  t.same(all.map((target) => target.labels.instance).sort(), stack.replicas.map(instanceOf).sort())
  for (const target of all) t.match(target, { health: 'up', lastError: '', labels: { job: 'media-bff' } }, `${target.labels.instance ?? ''} up`)
  const up = await prometheus.query('up{job="media-bff"}')
  t.same(up.map((sample) => sample.value[1]), ['1', '1'])
})

t.test('every metric and label the rules and the dashboard name is one the replicas export', async (t) => {
  // A histogram's family is scraped as its _bucket, _sum and _count series.
  const exported = new Set<string>()
  for (const { families } of scrapes) {
    for (const [name, type] of families) {
      for (const suffix of type === 'histogram' ? ['_bucket', '_sum', '_count'] : ['']) exported.add(`${name}${suffix}`)
    }
  }
  const labelsOf = (name: string): Set<string> => new Set(scrapes.flatMap((scraped) => scraped.samples.filter((sample) => sample.name === name).flatMap((sample) => Object.keys(sample.labels))))
  const queries = [
    ...rules.map((rule) => ({ where: `alerts.yml ${rule.alert}`, expr: rule.expr })),
    ...dashboardQueries(dashboard).map((query) => ({ where: `media-bff.json ${query.panel} ${query.refId}`, expr: query.expr }))
  ]
  t.ok(exported.size > 40, `${exported.size} series names exported`)
  for (const { where, expr } of queries) {
    for (const selector of selectorsOf(expr)) {
      // up is Prometheus's own, one per target: the instance alerts and panel ask for it.
      if (selector.name === 'up') continue
      t.ok(selector.name !== undefined && exported.has(selector.name), `${where}: ${selector.name ?? selector.text} is exported`)
      const labels = labelsOf(selector.name ?? '')
      // A series exists once touched; the flow touches every one whose labels are matched.
      for (const { label } of selector.matchers.filter((matcher) => !['job', 'instance'].includes(matcher.label))) {
        t.ok(labels.has(label), `${where}: ${selector.name ?? ''} carries ${label}`)
      }
    }
  }

  const queried = new Set(queries.flatMap(({ expr }) => selectorsOf(expr).map((selector) => selector.name?.replace(/_(bucket|sum|count)$/, ''))))
  const ownFamilies = [...new Set(scrapes.flatMap((scraped) => [...scraped.families.keys()]))].filter((name) => name.startsWith('media_bff_'))
  t.same(ownFamilies.filter((name) => !queried.has(name)), [], 'every metric of media-bff\'s own is on the dashboard or in a rule')
})

t.test('each dashboard query is valid PromQL to Prometheus, and has data wherever the flow made its series', async (t) => {
  const withData: string[] = []
  const notMade: string[] = []
  for (const query of dashboardQueries(dashboard)) {
    const expr = withVariables(query.expr, variables)
    const where = `${query.panel} ${query.refId}`
    const result = await prometheus.query(expr).catch((error: Error) => error)
    if (result instanceof Error) {
      t.fail(`${where}: ${result.message}`)
      continue
    }
    const missing: string[] = []
    for (const selector of selectorsOf(expr)) {
      if ((await prometheus.query(`count(${selector.text})`)).length === 0) missing.push(selector.text)
    }
    if (missing.length === 0) {
      t.ok(result.length > 0, `${where}: its series exist, so it has data`)
      withData.push(where)
    } else {
      t.same(result, [], `${where}: no data, as no series of ${missing.join(', ')} exists yet`)
      notMade.push(`${where} (${missing.join(', ')})`)
    }
  }
  t.ok(withData.length >= notMade.length * 3, `${withData.length} queries with data; without (their series never made by this flow): ${notMade.join('; ')}`)

  for (const variable of dashboard.templating.list.filter((candidate) => candidate.type === 'query')) {
    const definition = withVariables(typeof variable.query === 'string' ? variable.query : variable.query.query, variables)
    const [, selector = '', label = ''] = /^label_values\((.+), (\w+)\)$/.exec(definition) ?? []
    const values = await prometheus.api<string[]>(`/api/v1/label/${label}/values?match[]=${encodeURIComponent(selector)}`)
    t.same(values, variable.name === 'job' ? [job.job_name] : stack.replicas.map(instanceOf).sort(), `the ${variable.name} variable lists ${values.join(', ')}`)
  }
})

t.test('every rule evaluates against the scrapes; the refused channel is the only alert', async (t) => {
  const loaded = await alertRules()
  t.same(loaded.map((rule) => rule.name), rules.map((rule) => rule.alert), 'every alert of alerts.yml is loaded')
  for (const rule of loaded) {
    t.equal(rule.health, 'ok', `${rule.name} evaluates${rule.lastError === undefined || rule.lastError === '' ? '' : `: ${rule.lastError}`}`)
    t.ok(Date.parse(rule.lastEvaluation) > flowDone, `${rule.name}: evaluated after the flow`)
  }
  // The replica that refused the channel says so in its own counter.
  const refusing = scrapes.flatMap((scraped, i) => scraped.sum('media_bff_event_streams_dropped_total', { reason: 'instance_full' }) > 0 ? [stack.replicas[i]] : [])
  t.equal(refusing.length, 1)
  // The channels are closed: once Prometheus has seen it, nothing is near its limit any more.
  const expected = refusing.map((replica) => `MediaBffLiveChannelsRefused ${replica === undefined ? '' : instanceOf(replica)} pending`)
  t.same(await until('the closed channels seen', activeAlerts, (active) => active.join() === expected.join()), expected, 'only the refused channel\'s alert, pending: it holds for 5 minutes before it fires')
})

t.test('Redis stops: MediaBffStoreUnreachable goes pending on both replicas', async (t) => {
  await stack.redis.stop()
  const pending = stack.replicas.map((replica) => `MediaBffStoreUnreachable ${instanceOf(replica)} pending`)
  const active = await until('the store alert', activeAlerts, (now) => pending.every((alert) => now.includes(alert)))
  t.ok(pending.every((alert) => active.includes(alert)), active.join('; '))
  await stack.redis.start()
  await until('the store back', activeAlerts, (now) => !now.some((alert) => alert.startsWith('MediaBffStoreUnreachable')))
  t.pass('and leaves once Redis is back')
})

t.test('a replica stops: MediaBffInstanceDown goes pending for it, the deployment is not down', async (t) => {
  t.equal(await replicaB.stop('SIGTERM'), 0)
  // The state once Prometheus has scraped both since the stop. On a loaded machine the replica
  // still up can miss a scrape of its own (a 1 s timeout here), which puts its alert pending too
  // until its next scrape succeeds: that one passes, the stopped replica's stays.
  const read = async (): Promise<{ alerts: string[][], up: string[][] }> => ({
    alerts: (await prometheus.query('ALERTS{alertname=~"MediaBffInstanceDown|MediaBffAllInstancesDown"}')).map((sample) => [sample.metric.alertname ?? '', sample.metric.instance ?? '', sample.metric.alertstate ?? '', sample.metric.severity ?? '']),
    up: (await prometheus.query('up{job="media-bff"}')).map((sample) => [sample.metric.instance ?? '', sample.value[1]]).sort()
  })
  const expected = {
    alerts: [['MediaBffInstanceDown', instanceOf(replicaB), 'pending', 'warning']],
    up: [[instanceOf(replicaA), '1'], [instanceOf(replicaB), '0']].sort()
  }
  const settled = await until('the instance alert', read, (now) => JSON.stringify(now) === JSON.stringify(expected))
  t.same(settled.alerts, expected.alerts, 'the stopped replica\'s alert, pending; not the deployment\'s')
  t.same(settled.up, expected.up)
})
