// The last page of a sign-in or a consent run in a popup (`popup=` on /auth/login): instead of
// taking the browser back to the site, it tells the page that opened it how the sign-in ended and
// closes itself. The message goes to the origin the sign-in was to come back to (PUBLIC_URL's, or
// one of ALLOWED_ORIGINS: the return target is checked against them as the sign-in begins), by
// postMessage to the opener; and, for pages on media-bff's own origin whose opener handle a
// Cross-Origin-Opener-Policy took away, on a BroadcastChannel of that origin. It says only how the
// sign-in ended, never a token, an authorization code or a cookie; the page reads the session
// itself afterwards. For a page in another site's frame (FRAME_ANCESTORS) it also carries a
// one-time handoff code, to the opener alone, which is worth nothing without the verifier only
// that frame holds.
import { escapeHtml } from './auth-error-page.js'

/** What the popup tells its opener (the browser module checks each field: public/client/popup.ts). */
export interface PopupResult {
  /** The nonce the page gave the sign-in: it takes only its own popup's message. */
  nonce: string
  /** Where the message may go: the origin of the sign-in's return target. */
  targetOrigin: string
  outcome: 'signed_in' | 'error'
  /** With `error`: the sign-in error the browser would have come back with (`auth_error`). */
  error?: string
  /**
   * A sign-in for a page in another site's frame (FRAME_ANCESTORS): a one-time code, good for a
   * minute, with which that page's frame takes the new session into its own cookie partition
   * (POST /auth/session/handoff).
   */
  handoff?: string
}

/** The message's `type`, and the BroadcastChannel's name. */
export const POPUP_MESSAGE_TYPE = 'media-bff:popup'

/** A popup's nonce, as a page makes it (16 random bytes and more, base64url). */
export const POPUP_NONCE = /^[A-Za-z0-9_-]{16,64}$/

export function popupPage (result: PopupResult, scriptUrl: string): string {
  // JSON inside a script element: `<` written as an escape, so nothing in it can end the element.
  const data = JSON.stringify(result).replace(/</g, '\\u003c')
  const done = result.outcome === 'signed_in' ? 'Signed in.' : 'The sign-in was not completed.'
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(done)}</title>
<script type="application/json" id="media-bff-popup">${data}</script>
<script src="${escapeHtml(scriptUrl)}"></script>
</head><body>
<p>${escapeHtml(done)} You can close this window.</p>
</body></html>`
}

/** The popup page's script (GET /auth/popup.js): a file of its own, as the CSP allows no inline script. */
export const POPUP_SCRIPT = `'use strict';
(function () {
  var element = document.getElementById('media-bff-popup');
  var result;
  try { result = JSON.parse(element.textContent); } catch (error) { return; }
  var message = { type: ${JSON.stringify(POPUP_MESSAGE_TYPE)}, nonce: result.nonce, outcome: result.outcome, error: result.error, handoff: result.handoff };
  try { if (window.opener) window.opener.postMessage(message, result.targetOrigin); } catch (error) {}
  // A handoff code goes to the opener alone, never on the channel.
  if (result.handoff === undefined) try { var channel = new BroadcastChannel(${JSON.stringify(POPUP_MESSAGE_TYPE)}); channel.postMessage(message); channel.close(); } catch (error) {}
  window.close();
})();
`
