// How the page follows its session when it changes under it (the browser module's watcher): it
// leaves the signed-in view when the session ends, offers what newly granted scopes allow, and
// warns before the idle timeout with a "Stay signed in" that keeps it alive.
import type { SessionWatch } from '../client/media-bff-client.js'
import { showFailure } from './failures.js'
import { hideNotice, showNotice } from './notice.js'
import { endedNotice, expiringNotice } from './session-notices.js'

export interface SessionPage {
  /** Sign-in comes back to this very page. */
  loginUrl: () => string
  /** The session ended: nothing of it may stay on the page. */
  leaveSignedIn: () => void
  /** The session has more scopes now: show what they allow. */
  showGranted: () => void
}

export function followSessionChanges (watch: SessionWatch, page: SessionPage): void {
  watch.on('ended', (event) => {
    page.leaveSignedIn()
    showNotice(endedNotice(event, page.loginUrl()))
  })
  watch.on('scopes', () => { page.showGranted() })
  watch.on('expiring', (event) => {
    showNotice(expiringNotice(event, () => {
      watch.staySignedIn().then(() => { hideNotice() }, (error: unknown) => { showFailure(error, { doing: 'session check', loginUrl: page.loginUrl() }) })
    }))
  })
}
