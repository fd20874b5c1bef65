// What an operator watches: after a real flow through nginx, each replica's /metrics (scraped
// directly, as Prometheus does on the internal network) carries the named series with their
// labels; /metrics and /docs answer only METRICS_TOKEN and look absent to everyone else; /readyz
// (and media_bff_store_up) follows Redis going away and coming back while /healthz stays up.
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { request } from 'undici'
import { uploadDirect } from '../helpers/direct-upload.js'
import { signIn } from '../helpers/sign-in.js'
import { scrape, type Scrape } from './prometheus.js'
import { nextGoesTo, startProductionStack } from './stack.js'

// Tokens due for refresh 2 s after they are issued (half their lifetime), and a token endpoint
// slow enough that the second replica surely finds the first one's refresh lock taken.
const ACCESS_TOKEN_TTL_S = 4
const TOKEN_DELAY_MS = 2000

const stack = await startProductionStack(t, { emulator: { accessTokenTtl: ACCESS_TOKEN_TTL_S } })
const [replicaA, replicaB] = stack.replicas as [typeof stack.replicas[0], typeof stack.replicas[0]]

/** Status and JSON body of a GET straight to a replica. */
const direct = async (baseUrl: string, path: string): Promise<{ status: number, headers: Record<string, unknown>, body: any }> => {
  const response = await request(`${baseUrl}${path}`)
  return { status: response.statusCode, headers: response.headers, body: await response.body.json() }
}

/** Polls until `check` holds, for up to timeoutMs; returns the last value seen. */
const until = async <T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 10_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs
  let value = await read()
  while (!check(value) && Date.now() < deadline) {
    await sleep(100)
    value = await read()
  }
  return value
}

t.test('/metrics on each replica names the series of a sign-in, a refresh race and an upload', async (t) => {
  const browser = stack.browser()
  await signIn(browser)
  const signedInAt = Date.now()

  // Both replicas need the same grant refreshed at the same moment: one refreshes under the
  // Redis lock, the other waits for it and reuses the new tokens. Nothing else uses the token
  // before, so it is surely still the first one, now due.
  await sleep(signedInAt + (ACCESS_TOKEN_TTL_S / 2) * 1000 + 300 - Date.now())
  stack.emulator.injectFault({ endpoint: 'token', delayMs: TOKEN_DELAY_MS })
  await nextGoesTo(stack, replicaA)
  const race = await Promise.all([browser.post('/uploads/register', { folder_id: 0 }), browser.post('/uploads/register', { folder_id: 0 })])
  stack.emulator.clearFaults()
  t.same(race.map((answer) => answer.status), [200, 200])
  t.same(new Set(race.map((answer) => stack.servedBy(answer))), new Set([replicaA, replicaB]), 'one request on each replica')

  const registered = await browser.post('/uploads/register', { folder_id: 0, title: 'Counted' })
  t.equal(registered.status, 200, registered.text)
  const record = registered.json()
  t.equal((await uploadDirect(record.url_upload_direct, 'counted.txt', 'one file')).status, 200)
  t.equal((await browser.post(record.finish_url)).status, 200)

  const [a, b] = await Promise.all([scrape(replicaA.url, stack.metricsToken), scrape(replicaB.url, stack.metricsToken)]) as [Scrape, Scrape]
  t.match(a.contentType, /^text\/plain; version=0\.0\.4/)
  const total = (name: string, labels?: Record<string, string>): number => a.sum(name, labels) + b.sum(name, labels)

  t.ok(total('media_bff_http_request_duration_seconds_count', { method: 'GET', route: '/auth/callback', status_code: '302' }) >= 1, 'request latency by method, route and status')
  t.ok(total('media_bff_http_request_duration_seconds_bucket', { method: 'POST', route: '/uploads/register', status_code: '200', le: '+Inf' }) >= 3)
  t.ok(total('media_bff_http_request_duration_seconds_count', { route: '/uploads/:ulid/finish' }) >= 1, 'routes by pattern, never by ulid')
  t.equal(total('media_bff_logins_total', { outcome: 'redirected' }), 1, 'one sign-in started')
  t.equal(total('media_bff_callbacks_total', { outcome: 'signed_in' }), 1, 'one callback signed in')
  t.ok(total('media_bff_token_refreshes_total', { outcome: 'refreshed' }) >= 1, 'a refresh')
  t.ok(total('media_bff_token_refreshes_total', { outcome: 'reused' }) >= 1, 'and a replica that reused its tokens')
  t.ok(total('media_bff_token_refresh_duration_seconds_count', { outcome: 'refreshed' }) >= 1)
  const waits = total('media_bff_refresh_lock_wait_seconds_count')
  t.ok(waits >= 1, `a replica waited for the other's refresh lock (${waits} wait(s))`)
  t.ok(total('media_bff_refresh_lock_wait_seconds_sum') >= TOKEN_DELAY_MS / 1000 / 4, 'for a good part of the slow refresh')
  const waiter = a.sum('media_bff_refresh_lock_wait_seconds_count') > 0 ? a : b
  t.ok(waiter.sum('media_bff_token_refreshes_total', { outcome: 'reused' }) >= 1, 'the replica that waited reused the tokens the other one got')
  t.ok(total('media_bff_upload_registrations_total', { outcome: 'registered' }) >= 3, 'registrations by outcome')
  t.equal(total('media_bff_upload_finishes_total', { outcome: 'finished' }), 1, 'finishes by outcome')
  for (const endpoint of ['user_info', 'upload_id', 'finish']) {
    t.ok(total('media_bff_upstream_request_duration_seconds_count', { endpoint, status: '200' }) >= 1, `upstream latency for ${endpoint} by status`)
  }
  // Node's defaults under their standard names, so stock Node.js dashboards find them.
  for (const scraped of [a, b]) {
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds']) t.ok(scraped.has(name), `the process default ${name}, unprefixed`)
  }
  const names = new Set(a.samples.concat(b.samples).map((sample) => sample.name))
  t.same([...names].filter((name) => /^media_bff_(process|nodejs)_/.test(name)), [], 'no prefixed copy of the defaults')
  t.same([...names].filter((name) => !/^(media_bff|process|nodejs)_/.test(name)), [], 'everything else is media-bff\'s own, prefixed media_bff_')
  t.notOk(a.samples.concat(b.samples).some((sample) => Object.values(sample.labels).some((value) => value.includes(record.ulid))), 'no series carries an upload id')
})

t.test('with METRICS_TOKEN, /metrics and /docs answer only its bearer; to anyone else they look like routes that do not exist', async (t) => {
  const get = async (baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number, type: string, text: string }> => {
    const response = await request(`${baseUrl}${path}`, { headers })
    return { status: response.statusCode, type: String(response.headers['content-type'] ?? ''), text: await response.body.text() }
  }
  const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` })
  const token = stack.metricsToken
  const absent = await get(replicaA.url, '/no-such-route')
  t.equal(absent.status, 404)

  for (const path of ['/metrics', '/docs']) {
    const refusals: Array<[string, Record<string, string>]> = [
      ['no Authorization', {}],
      ['a wrong token of the same length', bearer(`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`)],
      ['the token with a character missing', bearer(token.slice(0, -1))],
      ['the token and more', bearer(`${token}x`)],
      ['another scheme', { authorization: `Basic ${Buffer.from(`operator:${token}`).toString('base64')}` }],
      ['the token elsewhere', { 'x-metrics-token': token, cookie: `token=${token}` }]
    ]
    for (const [what, headers] of refusals) {
      const answer = await get(replicaA.url, path, headers)
      t.equal(answer.status, 404, `${path}, ${what}: 404`)
      t.equal(answer.type, absent.type, `${path}, ${what}: the content type of a missing route`)
      t.same(JSON.parse(answer.text), { error: 'not_found', message: `There is no GET ${path}.` }, `${path}, ${what}: the body of a missing route`)
    }
    t.equal((await get(replicaA.url, `${path}?token=${token}`)).status, 404, `${path}: a token in the query is no token`)
  }

  const metrics = await get(replicaA.url, '/metrics', bearer(token))
  t.equal(metrics.status, 200)
  t.match(metrics.text, /media_bff_http_request_duration_seconds/)
  t.equal((await get(replicaB.url, '/metrics', { authorization: `bearer  ${token}` })).status, 200, 'the scheme is case-insensitive')
  const docs = await get(replicaA.url, '/docs', bearer(token))
  t.equal(docs.status, 200)
  t.match(JSON.parse(docs.text), { openapi: '3.1.0', info: { title: 'media-bff' } })

  // Through the proxy they are not served at all, token or not.
  for (const path of ['/metrics', '/docs']) {
    const answer = await stack.browser().get(path, bearer(token))
    t.equal(answer.status, 404, `${path} through nginx`)
    t.match(answer.json(), { error: 'not_found', message: String }, `${path} through nginx: the contract's shape`)
    t.notMatch(answer.text, /media_bff_|openapi/)
  }

  // Without METRICS_TOKEN both stay open: for a network where only Prometheus reaches them.
  const open = await stack.startReplica('replica-open', { METRICS_TOKEN: '' })
  t.equal((await get(open.url, '/metrics')).status, 200)
  t.equal((await get(open.url, '/docs')).status, 200)
})

t.test('/readyz is 503 while Redis is down and 200 once it is back; /healthz stays 200', async (t) => {
  const browser = stack.browser()
  await signIn(browser)
  for (const replica of stack.replicas) {
    t.match(await direct(replica.url, '/readyz'), { status: 200, body: { status: 'ready', store: 'redis', tenants: 1 } }, `${replica.name} ready`)
  }

  await stack.redis.stop()
  for (const replica of stack.replicas) {
    const down = await until(async () => await direct(replica.url, '/readyz'), (answer) => answer.status === 503)
    t.match(down, { status: 503, headers: { 'retry-after': '5' }, body: { error: 'unavailable', message: String } }, `${replica.name} not ready without Redis`)
    t.equal((await direct(replica.url, '/healthz')).status, 200, `${replica.name} still alive: nothing to restart`)
    t.equal((await scrape(replica.url, stack.metricsToken)).sum('media_bff_store_up'), 0, `${replica.name}: media_bff_store_up says so to Prometheus`)
  }
  // Through nginx the contract's 503 reaches the browser as it is, not as nginx's 502.
  const meanwhile = await browser.get('/auth/session')
  t.equal(meanwhile.status, 503)
  t.match(meanwhile.json(), { error: 'unavailable' })

  await stack.redis.start()
  for (const replica of stack.replicas) {
    const back = await until(async () => await direct(replica.url, '/readyz'), (answer) => answer.status === 200)
    t.match(back, { status: 200, body: { status: 'ready' } }, `${replica.name} ready again once Redis is back`)
    t.equal((await scrape(replica.url, stack.metricsToken)).sum('media_bff_store_up'), 1, `${replica.name}: media_bff_store_up too`)
  }
  t.equal((await browser.get('/auth/session')).json().authenticated, true, 'the session survived the Redis restart (AOF)')
})
