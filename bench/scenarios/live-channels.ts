// 6. Live channels (GET /events) held open by one instance: memory per open channel (RSS and
// heap of the media-bff process, gc'd readings before and after opening them all), beside the
// same readings of a bare Fastify server holding as many channels with the same head (the
// connection, request and answer any server keeps: what is left is media-bff's own share), the
// CPU the open channels cost while nothing happens (heartbeats), and how fast a finished upload
// reaches its person's eight tabs while all of them are open. Channels are 8 per session (the
// per-session bound), each its own HTTP connection, opened through the real sign-in and route.
import { Agent, request } from 'undici'
import { Browser } from '../../test/helpers/http-client.js'
import { signIn } from '../../test/helpers/sign-in.js'
import { BENCH_PEOPLE } from '../lib/sign-in.js'
import { startBareProcess, type BffStack, type ServerFlags } from '../lib/stack.js'
import type { ChildUsage } from '../lib/child.js'
import { median } from '../lib/stats.js'

export interface LiveChannelsResult {
  channels: number
  sessions: number
  openSeconds: number
  rssPerChannel: number
  heapPerChannel: number
  /** The same readings of the bare Fastify server holding as many channels. */
  bareRssPerChannel: number
  bareHeapPerChannel: number
  /** media-bff's CPU per second of wall time, idle, without and with the channels open. */
  idleCpuMsPerSecond: number
  openCpuMsPerSecond: number
  heartbeatMs: number
  /** From a finish's answer to the event in each of the person's 8 tabs (median and worst). */
  deliveryMsMedian: number
  deliveryMsMax: number
}

const TABS = 8
const IDLE_WINDOW_MS = 5_000

export async function liveChannelsScenario (stack: BffStack, channels: number, heartbeatMs: number, flags: ServerFlags): Promise<LiveChannelsResult> {
  const sessions = Math.ceil(channels / TABS)
  const browsers: Browser[] = []
  for (let i = 0; i < sessions; i++) {
    const browser = new Browser(stack.bff.url)
    const { callback } = await signIn(browser, { user: BENCH_PEOPLE[i % BENCH_PEOPLE.length] ?? 'alice' })
    if (callback.status !== 302) throw new Error(`sign-in ended with ${callback.status}`)
    browsers.push(browser)
  }
  const cpuOver = async (ms: number): Promise<number> => {
    const before = await stack.bff.child.usage()
    await new Promise((resolve) => setTimeout(resolve, ms))
    const after = await stack.bff.child.usage()
    return (after.cpu.user + after.cpu.system - before.cpu.user - before.cpu.system) / 1000 / (ms / 1000)
  }
  const idleCpuMsPerSecond = await cpuOver(IDLE_WINDOW_MS)
  const baseline = await stack.bff.child.call<ChildUsage>('gc')

  // Each channel its own connection, as each tab's is.
  const agent = new Agent({ connections: null, pipelining: 0, keepAliveTimeout: 600_000, bodyTimeout: 0, headersTimeout: 30_000 })
  const received: Array<Array<{ at: number, text: string }>> = []
  let head: Record<string, string> = {}
  const opened = performance.now()
  for (let i = 0; i < channels; i++) {
    const browser = browsers[Math.floor(i / TABS)] as Browser
    const response = await request(`${stack.bff.url}/events`, { dispatcher: agent, headers: channelRequest(browser) })
    if (response.statusCode !== 200) throw new Error(`GET /events answered ${response.statusCode}: ${await response.body.text()}`)
    head = headOf(response.headers)
    const chunks: Array<{ at: number, text: string }> = []
    received.push(chunks)
    response.body.on('data', (chunk: Buffer) => { chunks.push({ at: performance.now(), text: chunk.toString('utf8') }) })
    response.body.on('error', () => {})
  }
  const openSeconds = (performance.now() - opened) / 1000
  const loaded = await stack.bff.child.call<ChildUsage>('gc')
  const metrics = await (await request(`${stack.bff.url}/metrics`)).body.text()
  const open = Number(/^media_bff_event_streams (\d+)$/m.exec(metrics)?.[1])
  if (open !== channels) throw new Error(`media-bff holds ${open} channels, ${channels} were opened`)
  const openCpuMsPerSecond = await cpuOver(IDLE_WINDOW_MS)

  // One upload of the first session's person: its eight tabs hear of it.
  const uploader = browsers[0] as Browser
  const record = (await uploader.post('/uploads/register', { folder_id: 0 })).json()
  const form = new FormData()
  form.set('file', new Blob(['bench']), 'bench.txt')
  const sent = await fetch(record.url_upload_direct, { method: 'POST', body: form })
  if (!sent.ok) throw new Error(`the upload answered ${sent.status}`)
  const marks = received.slice(0, TABS).map((chunks) => chunks.length)
  const finished = await uploader.post(record.finish_url)
  const finishedAt = performance.now()
  if (finished.status !== 200) throw new Error(`finish answered ${finished.status}`)
  const deadline = Date.now() + 10_000
  const arrivals: number[] = []
  for (let tab = 0; tab < TABS; tab++) {
    for (;;) {
      const chunk = (received[tab] ?? []).slice(marks[tab]).find((c) => c.text.includes('event: file'))
      if (chunk !== undefined) {
        arrivals.push(Math.max(0, chunk.at - finishedAt))
        break
      }
      if (Date.now() > deadline) throw new Error(`tab ${tab} heard nothing of the finished upload`)
      await new Promise((resolve) => setTimeout(resolve, 2))
    }
  }
  await agent.destroy()
  const bare = await bareChannels(browsers, channels, head, received[0]?.[0]?.text ?? '', flags)
  return {
    channels,
    sessions,
    openSeconds,
    rssPerChannel: (loaded.memory.rss - baseline.memory.rss) / channels,
    heapPerChannel: (loaded.memory.heapUsed - baseline.memory.heapUsed) / channels,
    bareRssPerChannel: bare.rss,
    bareHeapPerChannel: bare.heap,
    idleCpuMsPerSecond,
    openCpuMsPerSecond,
    heartbeatMs,
    deliveryMsMedian: median(arrivals),
    deliveryMsMax: Math.max(...arrivals)
  }
}

/** What a tab sends to open its channel. */
function channelRequest (browser: Browser): Record<string, string> {
  return { cookie: browser.cookieHeader() ?? '', 'x-csrf': '1', accept: 'text/event-stream' }
}

/** The answer's head as it came (undici lower-cases the names), without what Node adds itself. */
function headOf (headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const own = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding'])
  return Object.fromEntries(Object.entries(headers).flatMap(([name, value]) => typeof value === 'string' && !own.has(name) ? [[name, value]] : []))
}

/** The same channels, the same requests, held by a bare Fastify server answering with the same head. */
async function bareChannels (browsers: Browser[], channels: number, eventHead: Record<string, string>, firstEvent: string, flags: ServerFlags): Promise<{ rss: number, heap: number }> {
  const bare = await startBareProcess({}, { eventHead, firstEvent }, flags)
  const agent = new Agent({ connections: null, pipelining: 0, keepAliveTimeout: 600_000, bodyTimeout: 0, headersTimeout: 30_000 })
  try {
    const baseline = await bare.child.call<ChildUsage>('gc')
    for (let i = 0; i < channels; i++) {
      const response = await request(`${bare.url}/events`, { dispatcher: agent, headers: channelRequest(browsers[Math.floor(i / TABS)] as Browser) })
      if (response.statusCode !== 200) throw new Error(`the bare channel answered ${response.statusCode}`)
      response.body.on('data', () => {})
      response.body.on('error', () => {})
    }
    const loaded = await bare.child.call<ChildUsage>('gc')
    return { rss: (loaded.memory.rss - baseline.memory.rss) / channels, heap: (loaded.memory.heapUsed - baseline.memory.heapUsed) / channels }
  } finally {
    await agent.destroy()
    await bare.child.stop()
  }
}
