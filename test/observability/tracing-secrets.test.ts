// No token, code, cookie, secret or signature in any exported span, whatever the traffic
// (docs/guide/operate.md, "Tracing and request ids"): fast-check makes up runs of real flows
// against media-bff with tracing on (sign-ins with the emulator's random codes and tokens, forged
// and refused callbacks with made-up codes and states, registrations handing out signed upload
// URLs, finishes, relayed calls with secrets in their query, refreshes, signed and forged
// webhooks, requests carrying made-up Bearer tokens and cookies), and every span the OTLP
// receiver got (names, attributes, events, links, status, resource) and every log line is
// searched for every secret of the run.
import t from 'tap'
import fc from 'fast-check'
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { SecretLedger } from '../hardening/secrets.js'
import { uploadDirect } from '../helpers/direct-upload.js'
import type { Browser } from '../helpers/http-client.js'
import { consent } from '../helpers/sign-in.js'
import { signatureOf } from '../../src/webhooks/webhook-signature.js'
import { newTraceparent, secret, startTracedStack } from './traced-stack.js'

const WEBHOOK_KEY = secret()
const METRICS_TOKEN = secret()
const OPERATOR_TOKEN = secret()
const SERVER = 2

/** A made-up secret: random, base64url, as the service's tokens and codes are. */
const madeUp = fc.uint8Array({ minLength: 24, maxLength: 32 }).map((bytes) => Buffer.from(bytes).toString('base64url'))

type Action =
  | { kind: 'sign_in', user: 'alice' | 'bob' }
  | { kind: 'forged_callback', code: string, state: string }
  | { kind: 'refused_sign_in', description: string }
  | { kind: 'register', title: string, upload: boolean, finish: boolean }
  | { kind: 'relay', afterExpiry: boolean }
  | { kind: 'oembed', signature: string }
  | { kind: 'foreign_credentials', bearer: string, cookie: string }
  | { kind: 'webhook', forgedSignature: string | undefined, token: string }

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ kind: fc.constant('sign_in' as const), user: fc.constantFrom('alice' as const, 'bob' as const) }),
  fc.record({ kind: fc.constant('forged_callback' as const), code: madeUp, state: madeUp }),
  fc.record({ kind: fc.constant('refused_sign_in' as const), description: madeUp }),
  fc.record({ kind: fc.constant('register' as const), title: fc.stringMatching(/^[A-Za-z0-9 ]{1,40}$/), upload: fc.boolean(), finish: fc.boolean() }),
  fc.record({ kind: fc.constant('relay' as const), afterExpiry: fc.boolean() }),
  fc.record({ kind: fc.constant('oembed' as const), signature: madeUp }),
  fc.record({ kind: fc.constant('foreign_credentials' as const), bearer: madeUp, cookie: madeUp }),
  fc.record({ kind: fc.constant('webhook' as const), forgedSignature: fc.option(fc.stringMatching(/^[0-9a-f]{64}$/), { nil: undefined }), token: madeUp })
)

t.test('no secret of any run of flows is in any exported span or log line', async (t) => {
  // Access tokens that are due for a refresh after half a second.
  // The test's client counts as the trusted proxy, so each request joins the trace it names and
  // the run knows when every one of them has arrived.
  const stack = await startTracedStack(t, { WEBHOOK_KEYS: WEBHOOK_KEY, METRICS_TOKEN, OPERATOR_TOKEN, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', TRUST_PROXY: 'loopback' }, { accessTokenTtl: 1 })
  const { receiver, emulator, bff } = stack
  let runs = 0
  let spansSearched = 0
  let tracesStarted = 0

  await fc.assert(fc.asyncProperty(fc.array(action, { minLength: 3, maxLength: 8 }), async (actions) => {
    runs++
    receiver.clear()
    const ledger = new SecretLedger()
    for (const value of [WEBHOOK_KEY, METRICS_TOKEN, OPERATOR_TOKEN]) ledger.add('configured secret', value)
    const traces: string[] = []
    const browser = stack.browser()
    /** Each request starts a trace of its own, so the run knows when all of them arrived. */
    const traced = (): Record<string, string> => {
      const { traceparent, traceId } = newTraceparent()
      traces.push(traceId)
      return { traceparent }
    }
    let signedIn = false
    for (const step of actions) signedIn = await perform(step, browser, signedIn, ledger, traced) || signedIn
    await ledger.addEmulator(emulator)
    ledger.addCookies(browser)

    const spans = await receiver.waitFor((all) => traces.every((traceId) => all.some((span) => span.traceId === traceId && span.kind === SERVER)))
    spansSearched += spans.length
    tracesStarted += traces.length
    const inSpans = ledger.leaksIn(JSON.stringify(spans))
    const inLogs = ledger.leaksIn(bff.logs().map((line) => JSON.stringify(line)).join('\n'))
    if (inSpans.length > 0 || inLogs.length > 0) throw new Error(`secrets found: in spans ${inSpans.join(', ') || 'none'}; in log lines ${inLogs.join(', ') || 'none'}`)
  }), { numRuns: 12, endOnFailure: true })
  t.equal(runs, 12, 'every run ran')
  // Each request's trace arrived with its server span at least (waitFor above); how many requests
  // the runs made is random (a step may have nothing to do, registering while signed out).
  t.ok(tracesStarted > 0 && spansSearched >= tracesStarted, `${spansSearched} spans of ${tracesStarted} traces searched`)
})

/** One step of a run, noting in the ledger every secret it handled; resolves to whether the browser is signed in. */
async function perform (step: Action, browser: Browser, signedIn: boolean, ledger: SecretLedger, traced: () => Record<string, string>): Promise<boolean> {
  switch (step.kind) {
    case 'sign_in': {
      const login = await browser.get('/auth/login', traced())
      const callbackUrl = new URL(await consent(browser, login.location ?? '', step.user))
      ledger.addCallback(callbackUrl)
      const callback = await browser.get(`${browser.baseUrl}${callbackUrl.pathname}${callbackUrl.search}`, traced())
      ledger.addCookies(browser)
      return callback.status === 302
    }
    case 'forged_callback':
      ledger.add('made-up code', step.code)
      ledger.add('made-up state', step.state)
      await browser.get(`/auth/callback?code=${step.code}&state=${step.state}`, traced())
      return false
    case 'refused_sign_in': {
      const login = await browser.get('/auth/login', traced())
      const state = new URL(login.location ?? '').searchParams.get('state') ?? ''
      ledger.add('state', state)
      ledger.add('made-up error description', step.description)
      await browser.get(`/auth/callback?error=access_denied&error_description=${step.description}&state=${state}`, traced())
      return false
    }
    case 'register': {
      if (!signedIn) return false
      const answer = await browser.post('/uploads/register', { folder_id: 0, title: step.title }, traced())
      if (answer.status !== 200) return true
      const record = answer.json() as { url_upload_direct: string, finish_url: string }
      for (const [name, value] of new URL(record.url_upload_direct).searchParams) ledger.add(`upload URL's ${name}`, value)
      if (step.upload) await uploadDirect(record.url_upload_direct, 'clip.mp4', 'not really a video')
      if (step.finish) await browser.post(record.finish_url, undefined, traced())
      return true
    }
    case 'relay':
      if (step.afterExpiry) await sleep(600)
      await browser.get('/api/folders/0/contents', traced())
      return signedIn
    case 'oembed':
      ledger.add('signature in a relayed query', step.signature)
      await browser.get(`/api/oembed?url=${encodeURIComponent(`https://media.example/share/1?sig=${step.signature}`)}`, traced())
      return signedIn
    case 'foreign_credentials':
      ledger.add('made-up bearer token', step.bearer)
      ledger.add('made-up cookie', step.cookie)
      await browser.get('/auth/session', { ...traced(), authorization: `Bearer ${step.bearer}`, cookie: `media-bff=${step.cookie}; other=${step.cookie}` })
      // Never traced (a scrape), but logged.
      await browser.get('/metrics', { authorization: `Bearer ${step.bearer}` })
      return signedIn
    case 'webhook': {
      const timestamp = String(Math.floor(Date.now() / 1000))
      const signature = step.forgedSignature ?? signatureOf(WEBHOOK_KEY, timestamp, step.token)
      ledger.add('webhook token', step.token)
      ledger.add('webhook signature', signature)
      const body = JSON.stringify({ signature: { timestamp, token: step.token, signature }, id: randomUUID(), event: 'file_transcode', data: { file_id: 1 } })
      await browser.fetch('POST', '/webhooks/media', { headers: { ...traced(), 'content-type': 'application/json' }, body })
      return signedIn
    }
  }
}
