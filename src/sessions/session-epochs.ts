// Each person's epoch: a value in the store, dropped after every change to any of their sessions
// or grants (a write, an ending, a refresh); the next read puts a new one in its place. A replica
// keeps copies of the sessions it serves (session-core.ts) and trusts a copy while the epoch it
// was read under is still the one in the store: one read per request tells every replica at once
// that a copy is out of date.
// The epoch is read in the same exchange as the request's rate counter: both keys carry the
// person's tag, so they share a Redis Cluster hash slot.
//
// Values never used before rather than a count: an epoch dropped, or lost by the store (evicted in
// memory, a Redis restart), comes back as a new value, never as one a stale copy was read under.
// Each is this process's random prefix and a counter: unique across replicas and restarts, and
// cheap enough to offer on every read (a read of an epoch that is absent writes the one it
// offers). A change drops the epoch rather than writing a new one: Redis at maxmemory refuses
// writes but not deletes, and an ending must reach every replica then too.
import { createHash, randomBytes } from 'node:crypto'
import type { KeyValueStore, ReadAndCounted } from '../store/key-value-store.js'
import { createBoundedMemo } from '../bounded-memo.js'

/** Tags worked out recently: every signed-in request needs its person's. */
const TAG_MEMO_ENTRIES = 10_000

export interface SessionEpochsOptions {
  /** How long an epoch is kept once written: as long as a session can live. */
  lifetimeMs: number
}

/** A count against one of the person's limits, taken with the epoch. */
export interface CountAgainst {
  /** The limit's name (plugins/gate.ts). */
  limit: string
  windowMs: number
}

export interface SessionEpochs {
  /** The person's epoch (made when there is none), and with `counting`, their count against that limit. */
  read: (budgetKey: string, counting?: CountAgainst) => Promise<ReadAndCounted>
  /** After a change to the person's sessions or grants: every replica's copies are out of date. */
  changed: (budgetKey: string) => Promise<void>
}

export function createSessionEpochs (checks: KeyValueStore, { lifetimeMs }: SessionEpochsOptions): SessionEpochs {
  const tags = createBoundedMemo<string>(TAG_MEMO_ENTRIES)
  const keys = (budgetKey: string): { epoch: string, tag: string } => {
    let tag = tags.get(budgetKey)
    if (tag === undefined) {
      tag = tagOf(budgetKey)
      tags.set(budgetKey, tag)
    }
    return { epoch: `epoch:{${tag}}`, tag }
  }
  return {
    async read (budgetKey, counting) {
      const { epoch, tag } = keys(budgetKey)
      const counter = counting === undefined ? undefined : { key: `rate:{${tag}}:${counting.limit}`, windowMs: counting.windowMs }
      return await checks.readAndCount(epoch, newEpoch(), lifetimeMs, counter)
    },
    async changed (budgetKey) {
      await checks.delete(keys(budgetKey).epoch)
    }
  }
}

const processPrefix = randomBytes(12).toString('base64url')
let issued = 0

function newEpoch (): string {
  return `${processPrefix}.${(++issued).toString(36)}`
}

/**
 * The person's hash tag: hashed, so what a tenant or the service calls a user (which may hold
 * `{` or `}`) never shapes a key, and user ids stay out of key names.
 */
function tagOf (budgetKey: string): string {
  return createHash('sha256').update(budgetKey).digest('base64url').slice(0, 22)
}
