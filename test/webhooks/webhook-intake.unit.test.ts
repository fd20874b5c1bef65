// Receiving a webhook (src/webhooks/webhook-intake.ts) on the in-memory store: only a body signed
// with one of the tenant's keys, fresh, with a token not spent on another id, is accepted, and
// nothing is written for anything else; property-based over arbitrary bodies and signatures.
import t from 'tap'
import fc from 'fast-check'
import { randomUUID } from 'node:crypto'
import { createMemoryStore } from '../../src/store/memory-store.js'
import { createWebhookIntake } from '../../src/webhooks/webhook-intake.js'
import { signatureOf } from '../../src/webhooks/webhook-signature.js'

const KEY = 'tenant-key-0123456789-abcdefgh'
const OLD_KEY = 'older-key-0123456789-abcdefghi'
const now = Date.parse('2026-11-25T12:00:00Z')
const seconds = String(now / 1000)

interface SignedParts { id?: string, timestamp?: string, token?: string }

const signed = (key: string, { id = randomUUID(), timestamp = seconds, token = 'a'.repeat(50) }: SignedParts = {}): Record<string, unknown> => ({
  signature: { timestamp, token, signature: signatureOf(key, timestamp, token) },
  id,
  event: 'file_transcode',
  api_version: '2024-06-01',
  data: { file_id: 42 }
})

/** A follow-up queue that takes everything, and what it was given. */
const queue = () => {
  const queued: unknown[] = []
  return { queued, enqueue: async (hint: unknown) => { queued.push(hint); return true } }
}

t.test('accepted once; a retry, a resend, a forgery, a stale one and a spent token are not', async (t) => {
  const store = createMemoryStore()
  const { queued, enqueue } = queue()
  const intake = { receive: async (tenant: string, keys: string[], body: unknown, at: number) => await createWebhookIntake(store).receive(tenant, keys, body, enqueue, at) }
  const keys = [KEY, OLD_KEY]
  const first = signed(KEY, { token: 't'.repeat(50) })
  t.match(await intake.receive('default', keys, first, now), { outcome: 'accepted', hint: { event: 'file_transcode', fileId: 42 } })
  t.equal((await intake.receive('default', keys, first, now)).outcome, 'duplicate', 'the very delivery again')
  t.equal((await intake.receive('default', keys, signed(KEY, { id: first.id as string, token: 'u'.repeat(50) }), now)).outcome, 'duplicate', 'the service retrying: same id, new token')
  t.equal((await intake.receive('default', keys, signed(KEY, { token: 't'.repeat(50) }), now)).outcome, 'refused_replay', 'its token on another id')
  t.equal((await intake.receive('default', keys, signed(OLD_KEY, { token: 'v'.repeat(50) }), now)).outcome, 'accepted', 'a key being rotated out still verifies')
  t.equal((await intake.receive('default', keys, signed('someone-else-0123456789-abcd', { token: 'w'.repeat(50) }), now)).outcome, 'refused_signature')
  t.equal((await intake.receive('default', keys, signed(KEY, { token: 'x'.repeat(50), timestamp: String(now / 1000 - 301) }), now)).outcome, 'refused_stale')
  t.equal((await intake.receive('default', keys, signed(KEY, { token: 'y'.repeat(50), timestamp: String(now / 1000 + 301) }), now)).outcome, 'refused_stale', 'from the future too')
  t.equal((await intake.receive('other', keys, first, now)).outcome, 'accepted', 'ids and tokens are per tenant')
  t.equal(queued.length, 3, 'each accepted one queued, nothing else')
})

t.test('a webhook the queue has no room for is refused, and its retry is a first delivery, not a duplicate', async (t) => {
  const store = createMemoryStore()
  const intake = createWebhookIntake(store)
  const body = signed(KEY)
  let room = false
  const enqueue = async (): Promise<boolean> => room
  t.equal((await intake.receive('default', [KEY], body, enqueue, now)).outcome, 'queue_full')
  room = true
  t.equal((await intake.receive('default', [KEY], body, enqueue, now)).outcome, 'accepted', 'the service\'s retry is taken')
  t.equal((await intake.receive('default', [KEY], body, enqueue, now)).outcome, 'duplicate', 'and only then is it a duplicate')
})

t.test('property: no body without the key\'s signature is ever accepted, and none of them writes', async () => {
  const json = fc.jsonValue({ maxDepth: 3 })
  const shaped = fc.record({
    signature: fc.record({ timestamp: fc.oneof(fc.constant(seconds), fc.string(), fc.integer()), token: fc.oneof(fc.stringMatching(/^[A-Za-z0-9]{16,60}$/), fc.string()), signature: fc.oneof(fc.stringMatching(/^[0-9a-f]{64}$/), fc.string()) }, { requiredKeys: [] }),
    id: fc.oneof(fc.uuid(), fc.string()),
    event: fc.oneof(fc.constantFrom('file_upload', 'file_transcode', 'folder_trash'), fc.string()),
    data: json
  }, { requiredKeys: [] })
  await fc.assert(fc.asyncProperty(fc.oneof(json, shaped), async (body) => {
    const store = createMemoryStore()
    let queued = 0
    const result = await createWebhookIntake(store).receive('default', [KEY], body, async () => { queued++; return true }, now)
    return result.outcome.startsWith('refused_') && store.size === 0 && queued === 0
  }), { numRuns: 300 })
})
