// 7. Webhooks. How many validly signed webhooks one instance accepts per second (each verified,
// deduplicated and its follow-up queued for good before the 202: in memory, and in a Redis
// stream), and how long a webhook takes to reach the person's page on another instance: normally,
// and when the instance that took its follow-up is killed (SIGKILL) and another takes it over.
// Each sample changes the file at the service first (a new title): a page is told each state of
// a file once, so an unchanged file announces nothing.
import { Agent, Pool, request } from 'undici'
import { Browser } from '../../test/helpers/http-client.js'
import { signIn } from '../../test/helpers/sign-in.js'
import { signedWebhook as signed } from '../../test/helpers/webhooks.js'
import { startBffProcess, type BffStack, type ServerProcess } from '../lib/stack.js'
import type { BenchRedis } from '../lib/redis.js'
import { median, quantile } from '../lib/stats.js'

export const BENCH_WEBHOOK_KEY = 'bench-webhook-key-0123456789-abcdef'

export interface WebhooksResult {
  /** 202s per second per instance over a `seconds` run at `connections`. */
  acceptedPerSecond: { memory: number, redis: number }
  connections: number
  seconds: number
  /** From the webhook sent to instance A to the event on the page held by instance B. */
  latency: { p50: number, p99: number, samples: number }
  /** From the 202 to the event on the surviving instance's page, when the instance that took the follow-up was killed. */
  killed: { median: number, max: number, samples: number, takeoverAfterMs: number }
}

const signedWebhook = (fileId: number): string => signed(BENCH_WEBHOOK_KEY, { fileId })

/** Webhooks about a file nobody finished through media-bff: accepted, queued, followed up (unknown_file). */
export async function acceptRate (url: string, connections: number, seconds: number): Promise<number> {
  const pool = new Pool(url, { connections })
  let accepted = 0
  const until = performance.now() + seconds * 1000
  const started = performance.now()
  await Promise.all(Array.from({ length: connections }, async () => {
    while (performance.now() < until) {
      const answer = await pool.request({ method: 'POST', path: '/webhooks/media', headers: { 'content-type': 'application/json' }, body: signedWebhook(424242) })
      await answer.body.dump()
      if (answer.statusCode === 202) accepted++
    }
  }))
  await pool.close()
  return accepted / ((performance.now() - started) / 1000)
}

interface Page { events: Array<{ title: string, at: number }>, close: () => void }

/** The person's live channel on one instance: the titles of the file events it hears, and when. */
async function openPage (url: string, cookie: string, agent: Agent): Promise<Page> {
  const events: Page['events'] = []
  const controller = new AbortController()
  const response = await request(`${url}/events`, { dispatcher: agent, signal: controller.signal, headers: { cookie, 'x-csrf': '1', accept: 'text/event-stream' } })
  if (response.statusCode !== 200) throw new Error(`GET /events answered ${response.statusCode}`)
  response.body.on('data', (chunk: Buffer) => {
    for (const match of chunk.toString('utf8').matchAll(/event: file\ndata: (.*)\n/g)) events.push({ title: String(JSON.parse(match[1] ?? '{}').title), at: performance.now() })
  })
  response.body.on('error', () => {})
  return { events, close: () => { controller.abort() } }
}

async function heard (page: Page, title: string, timeoutMs = 120_000): Promise<number> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const event = page.events.find((e) => e.title === title)
    if (event !== undefined) return event.at
    if (Date.now() > deadline) throw new Error(`no event for ${title}`)
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
}

/**
 * `stack`: media-bff on Redis with WEBHOOK_KEYS, and one more instance (addInstance) made by the
 * caller; `memoryUrl`: a media-bff in memory with WEBHOOK_KEYS, for the accept rate alone.
 */
export async function webhooksScenario (stack: BffStack, redis: BenchRedis, prefix: string, memoryUrl: string, options: { connections: number, seconds: number, samples: number, kills: number }): Promise<WebhooksResult> {
  const { connections, seconds } = options
  const memory = await acceptRate(memoryUrl, connections, seconds)
  const redisRate = await acceptRate(stack.bff.url, connections, seconds)

  const instances: ServerProcess[] = [stack.bff, ...stack.extra]
  const browser = new Browser(stack.bff.url)
  if ((await signIn(browser)).callback.status !== 302) throw new Error('alice could not sign in')
  const cookie = browser.cookieHeader() ?? ''
  const record = (await browser.post('/uploads/register', { folder_id: 0, options: { autofinish: false } })).json()
  const form = new FormData()
  form.set('file', new Blob(['bench']), 'bench.mp4')
  if (!(await fetch(record.url_upload_direct, { method: 'POST', body: form })).ok) throw new Error('the upload failed')
  const fileId = (await browser.post(record.finish_url)).json().files[0].file_id as number
  const agent = new Agent({ connections: null, keepAliveTimeout: 600_000, bodyTimeout: 0 })
  const pages = new Map<ServerProcess, Page>()
  for (const instance of instances) pages.set(instance, await openPage(instance.url, cookie, agent))
  let version = 0
  /** A new title for the file at the service (through the relay), so the next webhook has news. */
  const retitle = async (): Promise<string> => {
    const title = `bench ${++version}`
    const answer = await browser.fetch('PUT', `/api/files/${fileId}`, { headers: { 'x-csrf': '1', 'content-type': 'application/json' }, body: JSON.stringify({ title }) })
    if (answer.status !== 200) throw new Error(`retitle answered ${answer.status}`)
    return title
  }
  const post = async (url: string): Promise<number> => {
    const answer = await request(`${url}/webhooks/media`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: signedWebhook(fileId) })
    await answer.body.dump()
    if (answer.statusCode !== 202) throw new Error(`a webhook answered ${answer.statusCode}`)
    return performance.now()
  }

  const [a, b] = instances as [ServerProcess, ServerProcess]
  const latencies: number[] = []
  for (let i = 0; i < options.samples; i++) {
    const title = await retitle()
    const sent = performance.now()
    await post(a.url)
    latencies.push(await heard(pages.get(b) as Page, title) - sent)
  }

  const emulatorHook = async (method: string, body?: unknown): Promise<void> => {
    await fetch(`${stack.emulator.baseUrl}/__emulator/faults`, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) })
  }
  const takeoverAfterMs = 20_000
  const killedLatencies: number[] = []
  for (let i = 0; i < options.kills; i++) {
    const title = await retitle()
    // The service answers slowly about files: the follow-up is under way when its instance dies.
    await emulatorHook('POST', { endpoint: 'library', delayMs: 60_000 })
    const accepted = await post(a.url)
    const taker = await takerOf(redis, `${prefix}webhook-follow-ups`, instances)
    process.kill(taker.child.pid, 'SIGKILL')
    await emulatorHook('DELETE')
    const survivor = instances.find((instance) => instance !== taker) as ServerProcess
    killedLatencies.push(await heard(pages.get(survivor) as Page, title) - accepted)
    // The killed one comes back, as an orchestrator restarts it.
    pages.get(taker)?.close()
    const port = Number(new URL(taker.url).port)
    const restarted = await startBffProcess(stack.env, port)
    taker.child = restarted.child
    pages.set(taker, await openPage(taker.url, cookie, agent))
  }
  for (const page of pages.values()) page.close()
  await agent.destroy()
  const sorted = [...latencies].sort((x, y) => x - y)
  return {
    acceptedPerSecond: { memory, redis: redisRate },
    connections,
    seconds,
    latency: { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), samples: latencies.length },
    killed: { median: median(killedLatencies), max: Math.max(...killedLatencies), samples: killedLatencies.length, takeoverAfterMs }
  }
}

/** The instance whose consumer (`host:pid:...`) holds the one pending follow-up. */
async function takerOf (redis: BenchRedis, key: string, instances: ServerProcess[]): Promise<ServerProcess> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const pending = await redis.client.xpending(key, 'media-bff', '-', '+', 10) as Array<[string, string, number, number]>
    const pid = Number(pending[0]?.[1]?.split(':')[1])
    const taker = instances.find((instance) => instance.child.pid === pid)
    if (taker !== undefined) return taker
    if (Date.now() > deadline) throw new Error('no instance took the follow-up')
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}
