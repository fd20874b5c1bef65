// Following a webhook up, never forwarding it: its body is not signed, so it only says "look at
// file N". media-bff looks only at files it saw finished through it (uploaded-files.ts), reads
// the file from the service with the token of a live session of the person who uploaded it, and
// announces what the service answered, to that person's sessions only (to the finishing sign-in
// alone when its user id is unknown, and only while that session lives: its grant outlives it).
// A file that person cannot read (any more) announces nothing, and a status the pages were told
// already is not told again. A follow-up that cannot be done now (the service or the store away)
// throws, and its queue tries it again.
import type { MediaFileView } from '../media/read-media-file.js'
import type { PersonSessions } from '../sessions/person-sessions.js'
import type { UploadedFiles } from '../uploads/uploaded-files.js'
import { newMessageId, type LiveMessage } from '../events/live-message.js'
import type { FollowUp } from './follow-up-queue.js'
import { UpstreamError } from '../media/upstream-error.js'
import { GrantEndedError, GrantMissingError } from '../grants/grant-errors.js'
import { ATTR, inSpan, inTraceOf } from '../tracing/spans.js'

export interface HintParts {
  uploadedFiles: UploadedFiles
  personSessions: Pick<PersonSessions, 'list' | 'liveUntil'>
  /**
   * Reads the file with a token of the grant, as requests call the service (refreshed, retried
   * once on invalid_token), the calls carrying the webhook's request id.
   */
  readFile: (tenant: string, grantId: string, fileId: number, requestId: string | undefined) => Promise<MediaFileView>
  publish: (message: LiveMessage) => Promise<void>
}

export type HintOutcome = 'announced' | 'already_told' | 'not_a_file' | 'unknown_file' | 'nobody_signed_in' | 'unreadable'

/**
 * The follow-up as part of its webhook's request: in the intake's trace (the span `webhook
 * follow-up`), its calls to the service carrying the webhook's request id, whichever instance
 * runs it and however long after.
 */
export async function followHint (parts: HintParts, job: FollowUp): Promise<HintOutcome> {
  const follow = async (): Promise<HintOutcome> => await inSpan('webhook follow-up', { [ATTR.tenant]: job.tenant, [ATTR.webhookId]: job.id, [ATTR.webhookEvent]: job.event }, async (span) => {
    const outcome = await lookAt(parts, job)
    span.setAttribute(ATTR.outcome, outcome)
    return outcome
  })
  return await inTraceOf(job.traceparent, follow)
}

async function lookAt (parts: HintParts, job: FollowUp): Promise<HintOutcome> {
  const { tenant, fileId, event } = job
  if (fileId === undefined || !event.startsWith('file_')) return 'not_a_file'
  const owner = await parts.uploadedFiles.ownerOf(tenant, fileId)
  if (owner === undefined) return 'unknown_file'
  const sessions = owner.userId !== undefined
    ? await parts.personSessions.list({ tenant, userId: owner.userId })
    : (await parts.personSessions.liveUntil(owner.sid)) === undefined ? [] : [owner]
  if (sessions.length === 0) return 'nobody_signed_in'
  const file = await readWithAnyOf(parts, job, sessions.slice(0, MAX_READERS), fileId)
  if (file === undefined) return 'unreadable'
  if (!await parts.uploadedFiles.claimShowing(tenant, fileId, file)) return 'already_told'
  // What the service says of the file now, never the webhook's data.
  await parts.publish({ id: newMessageId(), event: 'file', handles: sessions.map((session) => session.handle), data: { event, files: [file] } })
  return 'announced'
}

/**
 * Sessions tried in turn: one whose grant just ended does not stop the rest. The service refusing
 * the file itself (403, 404, 410) is the person's answer: no other is asked. When every reader
 * failed for now (the service, the token endpoint or the store away), the follow-up fails, to be
 * tried again.
 */
const MAX_READERS = 3

async function readWithAnyOf (parts: HintParts, { tenant, requestId }: FollowUp, readers: ReadonlyArray<{ grantId: string }>, fileId: number): Promise<MediaFileView | undefined> {
  let failure: unknown
  for (const reader of readers) {
    try {
      return await parts.readFile(tenant, reader.grantId, fileId, requestId)
    } catch (error) {
      if (error instanceof UpstreamError && (error.status === 403 || error.status === 404 || error.status === 410)) return undefined
      if (!(error instanceof GrantEndedError || error instanceof GrantMissingError)) failure = error
    }
  }
  if (failure !== undefined) throw failure
  return undefined
}
