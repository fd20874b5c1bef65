// How many token refreshes a soak may have caused, from what the driver saw of each session: when
// it signed in and when each of its upstream calls (register, finish) was sent and answered.
//
// media-bff refreshes a grant when a call needs its token and the token is past half its lifetime
// T (the refresh skew is capped at T/2), one refresh per grant at a time across replicas. So:
//
// - Upper bound. A refresh is decided only inside one of the session's upstream call windows
//   [sent, answered] (while every call is answered in time, as the soak requires), and only
//   once the current token is past half its life: consecutive
//   refreshes of a grant are at least T/2 apart, the first at least T/2 after sign-in. The most
//   points with that spacing that fit into the call windows bound the grant's refreshes from
//   above: a count beyond it can only come from duplicates (two replicas renewing one expiry).
//   A duplicate that presents the same refresh token twice is caught exactly, by the emulator's
//   reuse detection (refresh tokens rotate), which the soak requires to stay at zero.
// - Lower bound. Every call that succeeded used a token the emulator had issued less than T
//   before it checked it, i.e. some issue time in (sent - T, answered]. The fewest issue times
//   that hit all those intervals (and the sign-in's own window), minus the sign-in's, bound the
//   refreshes from below: fewer means a call went out with an expired token yet succeeded.
// - Estimate. Replaying the policy on the send times (refresh at the first call sent after T/2)
//   gives the number a perfect implementation would make; it is reported, not asserted, since
//   answer latency moves each refresh by a few milliseconds.

export interface Window { sent: number, answered: number }

export interface SessionTimeline {
  /** The callback that created the grant. */
  signIn: Window
  /** Successful upstream calls (register, finish), in any order. */
  upstream: Window[]
  /** Every register and finish sent, answered or not: a refresh can only happen inside one. */
  attempted: Window[]
}

/** Slack for the milliseconds between the token response, the grant's timestamps and the checks. */
const SLACK_MS = 100

export function refreshUpperBound (session: SessionTimeline, ttlMs: number): number {
  const spacing = ttlMs / 2 - SLACK_MS
  let next = session.signIn.sent + spacing
  let count = 0
  for (const [start, end] of mergedWindows(session.attempted)) {
    let at = Math.max(start, next)
    while (at <= end) {
      count++
      at += spacing
    }
    next = Math.max(next, at)
  }
  return count
}

export function refreshLowerBound (session: SessionTimeline, ttlMs: number): number {
  // Intervals that must each contain an issue time, stabbed greedily at their right ends.
  const intervals = [
    { from: session.signIn.sent, to: session.signIn.answered },
    ...session.upstream.map((call) => ({ from: call.sent - ttlMs - SLACK_MS, to: call.answered }))
  ].sort((a, b) => a.to - b.to)
  let issues = 0
  let last = -Infinity
  for (const { from, to } of intervals) {
    if (last >= from && last <= to) continue
    issues++
    last = to
  }
  return Math.max(0, issues - 1)
}

export function refreshEstimate (session: SessionTimeline, ttlMs: number): number {
  let issuedAt = session.signIn.answered
  let count = 0
  for (const call of [...session.upstream].sort((a, b) => a.sent - b.sent)) {
    if (call.sent >= issuedAt + ttlMs / 2) {
      count++
      issuedAt = call.sent
    }
  }
  return count
}

function mergedWindows (windows: Window[]): Array<[number, number]> {
  const sorted = [...windows].sort((a, b) => a.sent - b.sent)
  const merged: Array<[number, number]> = []
  for (const { sent, answered } of sorted) {
    const last = merged.at(-1)
    if (last !== undefined && sent <= last[1]) last[1] = Math.max(last[1], answered)
    else merged.push([sent, answered])
  }
  return merged
}
