// A test's own reach into an app's session records and its people's index, through the same
// modules over the same stores and keys, for a test that plants a session (a sign-in without the
// walk, a record as an older version wrote it) or reads one back. Each write drops its person's
// epoch, as media-bff's own do, so the app's copy of the session is read again.
import type { FastifyInstance } from 'fastify'
import type { Config } from '../../src/config/config.js'
import { createSessionStore } from '../../src/store/session-store.js'
import { createTokenCipher } from '../../src/store/token-cipher.js'
import { createSessionEpochs } from '../../src/sessions/session-epochs.js'
import { createSessionIndex } from '../../src/sessions/session-index.js'
import { budgetKeyOf, recordLifetimeMs, type SessionRecord } from '../../src/sessions/signed-in.js'

export function sessionRecords (app: FastifyInstance, config: Config) {
  const epochs = createSessionEpochs(app.stores.checks, { lifetimeMs: config.session.absoluteTimeoutMs })
  const records = createSessionStore<SessionRecord>(app.stores.people, {
    cipher: createTokenCipher(config.tokenKeys),
    ttlMs: (session) => recordLifetimeMs(session, config.session, app.clock()),
    changed: async (session) => {
      const budgetKey = budgetKeyOf(session)
      if (budgetKey !== undefined) await epochs.changed(budgetKey)
    }
  })
  return {
    /** The record, as media-bff reads it (with its asStored), or undefined. */
    read: async (sid: string): Promise<SessionRecord | undefined> => await records.load(sid) as SessionRecord | undefined,
    /** Writes a record: a new one where there is none, or over the one a `read` gave (its asStored). */
    write: async (sid: string, record: SessionRecord): Promise<boolean> => await records.save(sid, { ...record }),
    index: createSessionIndex(app.stores.people, { lifetimeMs: config.session.absoluteTimeoutMs })
  }
}
