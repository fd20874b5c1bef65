// A sign-in or a consent in a popup, so the page is never taken away: opened from the person's
// click, it runs media-bff's sign-in (`popup=<nonce>` on /auth/login), whose last page tells this
// page how it ended and closes itself (src/pages/popup-page.ts). Only that page's message is
// taken: from the popup this call opened, from media-bff's origin, with this call's nonce; or, on
// media-bff's own origin, the same message on its BroadcastChannel (for when a
// Cross-Origin-Opener-Policy on the way took the popup's handle on its opener away). Anything
// else any window posts changes nothing.

/** The message's type, and the BroadcastChannel's name (as media-bff's popup page sends them). */
const MESSAGE_TYPE = 'media-bff:popup'
/** How often the popup is looked at, to tell when the person closed it. */
const CLOSED_POLL_MS = 250
/** A popup left open longer than a sign-in may take (LOGIN_TIMEOUT's default) counts as closed. */
const MAX_OPEN_MS = 15 * 60_000
/** A popup of a reasonable size for a sign-in page, centred on this window. */
const WIDTH = 520
const HEIGHT = 680

export type PopupOutcome =
  /** `handoff`: for a page in another site's frame, the code that takes the session into its partition. */
  | { kind: 'signed_in', handoff?: string }
  /** The sign-in came back with this error (`access_denied`: the person said no). */
  | { kind: 'error', code: string }
  /** The person closed the popup before it ended. */
  | { kind: 'closed' }
  /** The browser did not open it (a popup blocker: not opened from a click). */
  | { kind: 'blocked' }

export interface PopupOptions {
  /** media-bff's origin: the only one the message may come from. */
  bffOrigin: string
  /** The nonce the URL carries (`popup=`). */
  nonce: string
}

/** A fresh nonce for a popup's sign-in: 16 random bytes, base64url. */
export function popupNonce (): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/**
 * Opens `url` in a popup now (call it from the click itself: browsers block a popup opened
 * later), and resolves with how it ended. Never rejects. A URL still being worked out (a framed
 * page's verifier is hashed first) opens an empty popup now, which goes there once it is known.
 */
export function openPopup (url: string | Promise<string>, { bffOrigin, nonce }: PopupOptions): Promise<PopupOutcome> {
  const left = Math.max(0, Math.round(window.screenX + (window.outerWidth - WIDTH) / 2))
  const top = Math.max(0, Math.round(window.screenY + (window.outerHeight - HEIGHT) / 2))
  const popup = window.open(typeof url === 'string' ? url : '', `media-bff-${nonce}`, `popup=yes,width=${WIDTH},height=${HEIGHT},left=${left},top=${top}`)
  if (popup === null) return Promise.resolve({ kind: 'blocked' })
  if (typeof url !== 'string') {
    url.then((href) => { popup.location.href = href }, () => { popup.close() })
  }
  return new Promise<PopupOutcome>((resolve) => {
    let channel: BroadcastChannel | undefined
    let settled = false
    const finish = (outcome: PopupOutcome): void => {
      if (settled) return
      settled = true
      window.removeEventListener('message', onMessage)
      channel?.close()
      clearInterval(poll)
      clearTimeout(cap)
      resolve(outcome)
    }
    const take = (data: unknown): void => {
      const outcome = outcomeOf(data, nonce)
      if (outcome !== undefined) finish(outcome)
    }
    const onMessage = (event: MessageEvent): void => {
      if (event.source !== popup || event.origin !== bffOrigin) return
      take(event.data)
    }
    window.addEventListener('message', onMessage)
    if (bffOrigin === window.location.origin && typeof BroadcastChannel === 'function') {
      channel = new BroadcastChannel(MESSAGE_TYPE)
      channel.onmessage = (event) => { take(event.data) }
    }
    // Closed without a word: the person closed it (or a Cross-Origin-Opener-Policy on the way cut
    // the page off from it: the page then learns from the session). The last page's message comes
    // before it closes itself; one more turn lets a message in flight arrive first.
    let closing = false
    const poll = setInterval(() => {
      if (!popup.closed || closing) return
      closing = true
      setTimeout(() => { finish({ kind: 'closed' }) }, CLOSED_POLL_MS)
    }, CLOSED_POLL_MS)
    const cap = setTimeout(() => { finish({ kind: 'closed' }) }, MAX_OPEN_MS)
  })
}

/** The outcome a message says, when it is media-bff's popup message for this nonce. */
function outcomeOf (data: unknown, nonce: string): PopupOutcome | undefined {
  if (typeof data !== 'object' || data === null) return undefined
  const message = data as Record<string, unknown>
  if (message.type !== MESSAGE_TYPE || message.nonce !== nonce) return undefined
  if (message.outcome === 'signed_in') return typeof message.handoff === 'string' && /^[A-Za-z0-9_-]{43}$/.test(message.handoff) ? { kind: 'signed_in', handoff: message.handoff } : { kind: 'signed_in' }
  if (message.outcome === 'error') return { kind: 'error', code: typeof message.error === 'string' && /^[a-z_]{1,64}$/.test(message.error) ? message.error : 'server_error' }
  return undefined
}
