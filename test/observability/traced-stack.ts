// media-bff with tracing on, as an operator turns it on: the production entry (src/server.ts) in
// a process of its own, configured by the standard OTEL_* variables alone, pointing at a real
// OTLP receiver, in front of the emulator. Each piece is torn down in t.teardown.
import { randomBytes } from 'node:crypto'
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../emulator/index.js'
import { UNLIMITED_RATES } from '../helpers/bff.js'
import { Browser } from '../helpers/http-client.js'
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js'
import { freePort } from '../helpers/ports.js'
import { startBffProcess, type BffProcess, type Env } from '../helpers/processes.js'

export interface TracedStack {
  receiver: OtlpReceiver
  emulator: RunningEmulator
  bff: BffProcess
  browser: (headers?: Record<string, string>) => Browser
}

interface Teardown { teardown: (fn: () => Promise<void> | void) => void }

export const secret = (): string => randomBytes(32).toString('base64url')

export async function startTracedStack (t: Teardown, env: Env = {}, emulatorOptions: EmulatorOptions = {}): Promise<TracedStack> {
  const receiver = await startOtlpReceiver()
  t.teardown(receiver.close)
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const emulator = await startEmulator({ apiPort: 0, uploadPort: 0, redirectUri: `${url}/auth/callback`, clientSecret: secret(), ...emulatorOptions })
  t.teardown(emulator.stop)
  const bff = await startBffProcess({
    port,
    env: {
      PUBLIC_URL: url,
      MEDIA_BASE_URL: emulator.baseUrl,
      OAUTH_CLIENT_ID: emulator.clientId,
      OAUTH_CLIENT_SECRET: emulator.clientSecret,
      OAUTH_SCOPES: 'basic user.info upload manage',
      SESSION_SECRETS: secret(),
      TOKEN_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      LOG_LEVEL: 'info',
      ...UNLIMITED_RATES,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: 'media-bff-under-test',
      // The SDK's batch goes out every 5 s by default; a test need not wait that long.
      OTEL_BSP_SCHEDULE_DELAY: '100',
      ...env
    }
  })
  t.teardown(async () => { await bff.stop() })
  return { receiver, emulator, bff, browser: (headers = {}) => new Browser(url, headers) }
}

/** A W3C traceparent as a proxy or a browser sends it: a new trace, its caller's span, sampled. */
export function newTraceparent (): { traceparent: string, traceId: string, parentId: string } {
  const traceId = randomBytes(16).toString('hex')
  const parentId = randomBytes(8).toString('hex')
  return { traceparent: `00-${traceId}-${parentId}-01`, traceId, parentId }
}

/** The span and its ancestors in `spans`, innermost first, up to the trace's root here. */
export function ancestry (spans: ReceivedSpan[], span: ReceivedSpan): ReceivedSpan[] {
  const chain = [span]
  let parent = spans.find((other) => other.spanId === span.parentSpanId)
  while (parent !== undefined) {
    chain.push(parent)
    const { parentSpanId } = parent
    parent = spans.find((other) => other.spanId === parentSpanId)
  }
  return chain
}
