// Fills every store family (src/store/store-families.ts) with what media-bff really writes there,
// through the modules that write it, and measures what each unit takes: in memory, the heap of
// each family filled to its bound (MEMORY_MAX_SESSIONS at its default), gc'd before and after;
// on Redis, MEMORY USAGE of each kind of key, for the sizing tables of docs/guide/operate.md
// ("Sizing the stores"). Run with --expose-gc.
import { randomBytes, randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import { createStoreFamilies, memoryBounds, type StoreFamilies } from '../../src/store/store-families.js'
import { createTokenCipher, parseTokenKeys } from '../../src/store/token-cipher.js'
import { createSessionStore } from '../../src/store/session-store.js'
import { createGrantStore } from '../../src/grants/grant-store.js'
import { createSessionIndex, newSessionHandle } from '../../src/sessions/session-index.js'
import { createLoginTransactions } from '../../src/sign-in/login-transactions.js'
import { createLoginStateSigner } from '../../src/sign-in/login-state.js'
import { createRegistrations } from '../../src/uploads/registrations.js'
import { createUploadedFiles } from '../../src/uploads/uploaded-files.js'
import { createWebhookIntake } from '../../src/webhooks/webhook-intake.js'
import { signatureOf } from '../../src/webhooks/webhook-signature.js'
import { createRedisFollowUpQueue } from '../../src/webhooks/redis-follow-up-queue.js'
import { serveParent } from './child-host.js'

const HOUR = 3_600_000
const KEY = 'bench-webhook-key-0123456789-abcdef'
const cipher = createTokenCipher(parseTokenKeys(`bench:${randomBytes(32).toString('base64')}`))
const secret = 'bench-session-secret-0123456789-abcdefgh'

/** Writers of each family, as media-bff's own modules write them; each call adds one unit. */
function writers (stores: StoreFamilies) {
  const sessions = createSessionStore<object>(stores.people, { cipher, ttlMs: () => 2 * HOUR })
  const grants = createGrantStore(stores.people, cipher, { ttlMs: 12 * HOUR })
  const index = createSessionIndex(stores.people, { lifetimeMs: 12 * HOUR })
  const logins = createLoginTransactions({ cipher, store: stores.signIns, states: createLoginStateSigner([secret]), cookiePrefix: 'x-', ttlMs: 600_000, maxPerBrowser: 3 })
  const registrations = createRegistrations(stores.uploads)
  const finishes = createUploadedFiles(stores.finishes)
  const intake = createWebhookIntake(stores.webhooks)
  let n = 0
  return {
    /** A sign-in: its session record, its grant and its entry in the person's index (one person each). */
    signIn: async (): Promise<void> => {
      const i = ++n
      const grant = await grants.create({ tenant: 'default', userId: String(100000 + i), accessToken: randomBytes(32).toString('base64url'), refreshToken: randomBytes(32).toString('base64url'), expiresAt: Date.now() + HOUR, scopes: ['basic', 'user.info', 'upload'] })
      const sid = randomBytes(24).toString('base64url')
      const handle = newSessionHandle()
      const session = { grantId: grant.id, tenant: 'default', user: { id: String(100000 + i), name: `Person ${i}`, email: `person${i}@example.org` }, uploadOwner: randomBytes(18).toString('base64url'), handle, authenticatedAt: Date.now(), lastSeen: Date.now() }
      await sessions.save(sid, session)
      await index.add({ tenant: 'default', userId: String(100000 + i) }, handle, { sid, grantId: grant.id, createdAt: Date.now(), device: 'Firefox on Windows', network: '192.0.2.0/24' })
    },
    lock: async (): Promise<void> => { await stores.locks.setIfAbsent(`lock:grant:${randomBytes(18).toString('base64url')}`, randomBytes(16).toString('hex'), 15_000) },
    signInUsed: async (): Promise<void> => { await logins.claim(randomBytes(40).toString('base64url'), { tenant: 'default', codeVerifier: '', returnTo: '/', scopes: [], addedScopes: [], createdAt: Date.now() }) },
    registration: async (): Promise<void> => {
      const ulid = `01J${randomBytes(16).toString('hex').toUpperCase().slice(0, 23)}`
      await registrations.remember(randomBytes(18).toString('base64url'), { ulid, finishUrl: `https://media.example.org/api/upload/id/${ulid}`, tenant: 'default', expiresAt: Date.now() + HOUR })
    },
    finish: async (): Promise<void> => {
      const fileId = 1_000_000 + ++n
      await finishes.claimShowing('default', fileId, { file_id: fileId, title: 'A title of some length', status: 'processing' }, { handle: newSessionHandle(), sid: randomBytes(24).toString('base64url'), grantId: randomBytes(18).toString('base64url'), userId: '123456' })
    },
    webhook: async (): Promise<void> => {
      const timestamp = String(Math.floor(Date.now() / 1000))
      const token = randomUUID().replaceAll('-', '')
      const body = { signature: { timestamp, token, signature: signatureOf(KEY, timestamp, token) }, id: randomUUID(), event: 'file_transcode', api_version: '2024-06-01', data: { file_id: 1 } }
      const result = await intake.receive('default', [KEY], body, async () => true)
      if (result.outcome !== 'accepted') throw new Error(`a webhook was ${result.outcome}`)
    }
  }
}

async function heap (): Promise<number> {
  for (let pass = 0; pass < 4; pass++) {
    globalThis.gc?.()
    await new Promise((resolve) => setTimeout(resolve, 30))
  }
  return process.memoryUsage().heapUsed
}

serveParent({
  /** Each family filled to its bound, in memory: units, entries, and the heap they take. */
  memory: async (message) => {
    const maxSessions = message.maxSessions as number
    const bounds = memoryBounds(maxSessions)
    const stores = createStoreFamilies({ maxSessions })
    const write = writers(stores)
    const plan: Array<{ family: string, unit: string, units: number, add: () => Promise<void> }> = [
      { family: 'people', unit: 'sign-in (session, grant, index)', units: bounds.admitPeopleBelow / 3, add: write.signIn },
      { family: 'locks', unit: 'refresh lock', units: maxSessions, add: write.lock },
      { family: 'sign_ins', unit: 'used sign-in state', units: bounds.sign_ins, add: write.signInUsed },
      { family: 'uploads', unit: 'registration', units: bounds.uploads, add: write.registration },
      { family: 'finishes', unit: 'finished file', units: bounds.finishes, add: write.finish },
      { family: 'webhooks', unit: 'webhook (id and token)', units: bounds.webhooks / 2, add: write.webhook }
    ]
    const rows = []
    for (const { family, unit, units, add } of plan) {
      const before = await heap()
      for (let i = 0; i < units; i++) await add()
      const after = await heap()
      rows.push({ family, unit, units, entries: stores.sizes()[family as keyof ReturnType<typeof stores.sizes>] ?? 0, bytes: after - before })
    }
    await stores.close()
    return { maxSessions, rows }
  },
  /** On Redis: MEMORY USAGE per unit of each kind, averaged over `units` of each. */
  redis: async (message) => {
    const url = message.url as string
    const units = message.units as number
    const prefix = `sizes-${randomBytes(4).toString('hex')}:`
    const stores = createStoreFamilies({ redisUrl: url, keyPrefix: prefix })
    const raw = new Redis(url)
    const write = writers(stores)
    const usage = async (pattern: string): Promise<{ keys: number, bytes: number }> => {
      let cursor = '0'
      let keys = 0
      let bytes = 0
      do {
        const [next, found] = await raw.scan(cursor, 'MATCH', `${prefix}${pattern}`, 'COUNT', 1000)
        cursor = next
        for (const key of found) {
          keys++
          bytes += Number(await raw.memory('USAGE', key, 'SAMPLES', 0))
        }
      } while (cursor !== '0')
      return { keys, bytes }
    }
    const per = async (add: () => Promise<void>, patterns: string[]): Promise<number> => {
      for (let i = 0; i < units; i++) await add()
      let bytes = 0
      for (const pattern of patterns) bytes += (await usage(pattern)).bytes
      return bytes / units
    }
    const rows = [
      { unit: 'sign-in: session, grant, index entry', bytes: await per(write.signIn, ['sess:*', 'grant:*', 'people:*']) },
      { unit: 'refresh lock (while a refresh runs)', bytes: await per(write.lock, ['lock:*']) },
      { unit: 'used sign-in state (10 minutes)', bytes: await per(write.signInUsed, ['login-used:*']) },
      { unit: 'registration (until it expires)', bytes: await per(write.registration, ['upload:*']) },
      { unit: 'finished file (24 hours)', bytes: await per(write.finish, ['uploaded-file:*']) },
      { unit: 'webhook: id (24 hours) and token (11 minutes)', bytes: await per(write.webhook, ['webhook-*']) }
    ]
    // A follow-up waiting in the stream: the stream's size per entry.
    const client = stores.redis as Redis
    const queue = createRedisFollowUpQueue({ client, key: `${prefix}webhook-follow-ups`, maxWaiting: 1_000_000 })
    for (let i = 0; i < units; i++) await queue.add({ tenant: 'default', id: randomUUID(), event: 'file_transcode', fileId: 1_000_000 + i, acceptedAt: Date.now() })
    rows.push({ unit: 'webhook follow-up waiting (until done)', bytes: Number(await raw.memory('USAGE', `${prefix}webhook-follow-ups`, 'SAMPLES', 0)) / units })
    await raw.del(...(await raw.keys(`${prefix}*`)))
    raw.disconnect()
    await stores.close()
    return { units, rows }
  }
}, async () => {})
