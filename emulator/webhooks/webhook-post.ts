// One delivery attempt: POST the JSON body to the endpoint, within a deadline, and report the
// status it answered (0 without one). Redirects are not followed; like any answer outside 2xx
// they count as a failure. Each attempt has a connection of its own (closed after it), so no
// idle connection is left to a receiver that a test is about to close.
import { Agent, request } from 'undici'

export const attemptDeadlineMs = 5000

/** The status the endpoint answered, or 0 when it could not be reached or did not answer in time. */
export async function postWebhook (dispatcher: Agent, url: string, body: unknown, stop: AbortSignal, deadlineMs = attemptDeadlineMs): Promise<number> {
  try {
    const answer = await request(url, {
      method: 'POST',
      dispatcher,
      reset: true,
      headers: { 'content-type': 'application/json', 'user-agent': 'media-emulator-webhooks' },
      body: JSON.stringify(body),
      signal: AbortSignal.any([stop, AbortSignal.timeout(deadlineMs)])
    })
    // The answer's body means nothing to the sender; it is read (a little of it) only so the
    // connection can close cleanly.
    await answer.body.dump({ limit: 64 * 1024 }).catch(() => {})
    return answer.statusCode
  } catch {
    return 0
  }
}

/** The sender's own connection pool, so the emulator never shares (or changes) the process's. */
export function webhookDispatcher (): Agent {
  return new Agent({ connect: { timeout: attemptDeadlineMs } })
}
