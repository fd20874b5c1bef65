// Redis restarted in the middle of a burst of webhooks: what media-bff answered 2xx is followed up,
// every one of them, once Redis is back (its stream is kept by AOF, as in production); what it
// could not queue meanwhile it refused, and the sender's retries were taken. Nothing accepted is
// lost. Real redis-servers, stopped and started again: a single server, and the Cluster node that
// holds the stream (webhook-redis-restart-*.test.ts).
import type { Test } from 'tap'
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { request } from 'undici'
import { startStack, UNLIMITED_RATES } from '../helpers/bff.js'
import { signedWebhook } from '../helpers/webhooks.js'
import { pollUntil } from '../emulator/poll.js'

const WEBHOOK_KEY = 'webhook-key-0123456789-abcdefghijkl'
const WEBHOOKS = 300
const SENDERS = 10

export const RESTART_PREFIX = 'restart:'
/** The stream of follow-ups: on a Cluster, the node to restart is the one holding it. */
export const STREAM_KEY = `${RESTART_PREFIX}webhook-follow-ups`

export interface RestartableRedis {
  url: string
  /** Stops the server (the Cluster node) that holds the stream, and starts it again. */
  restart: () => Promise<void>
}

export function redisRestartSuite (t: Test, redis: () => RestartableRedis): void {
  t.test('a webhook burst across a Redis restart: every accepted webhook is followed up', async (t) => {
    const stack = await startStack({ env: { ...UNLIMITED_RATES, REDIS_URL: redis().url, REDIS_KEY_PREFIX: RESTART_PREFIX, WEBHOOK_KEYS: WEBHOOK_KEY, RATE_LIMIT_WEBHOOKS_PER_MINUTE: '100000', WEBHOOK_TAKEOVER_AFTER: '2s' } })
    t.teardown(stack.close)
    const ids = Array.from({ length: WEBHOOKS }, () => randomUUID())
    const outcomes = new Map<string, number[]>()
    /** Sends one webhook as the service does: again, freshly signed, until it is answered 2xx. */
    const deliver = async (id: string): Promise<void> => {
      for (let attempt = 0; attempt < 100; attempt++) {
        const body = signedWebhook(WEBHOOK_KEY, { id })
        const status = await request(`${stack.bff.url}/webhooks/media`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(async (answer) => { await answer.body.dump(); return answer.statusCode }, () => 0)
        outcomes.set(id, [...outcomes.get(id) ?? [], status])
        if (status >= 200 && status < 300) return
        await sleep(200)
      }
    }
    let next = 0
    const senders = Array.from({ length: SENDERS }, async () => {
      while (next < ids.length) await deliver(ids[next++] as string)
    })
    await pollUntil('a third of the burst answered', () => outcomes.size, (count) => count >= WEBHOOKS / 3)
    await redis().restart()
    await Promise.all(senders)

    const answered = [...outcomes.values()]
    t.ok(answered.every((statuses) => [200, 202].includes(statuses.at(-1) ?? 0)), 'every webhook was taken in the end')
    const refused = answered.filter((statuses) => statuses.length > 1).length
    t.ok(refused > 0, `${refused} were refused while Redis was away, and taken when the sender tried again`)
    t.ok(answered.flat().every((status) => [0, 200, 202, 503].includes(status)), 'refused with 503 (the contract\'s unavailable), never anything else')

    const followed = async (): Promise<Set<string>> => new Set(stack.bff.logs.filter((line) => line.includes('"msg":"webhook followed up"')).map((line) => JSON.parse(line).webhookId as string))
    const done = await pollUntil('every accepted webhook followed up', followed, (seen) => ids.every((id) => seen.has(id)), 30_000)
    t.equal(ids.filter((id) => done.has(id)).length, WEBHOOKS, `all ${WEBHOOKS} followed up`)
    await stack.bff.app.live.webhooks.idle()
  })
}
