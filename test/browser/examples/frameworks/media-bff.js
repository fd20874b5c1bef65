// What the three example pages share, as a site would have it in one module: the client (media-bff
// on another origin, whose address the page carries: the test serves these pages on a port of
// their own, listed in media-bff's ALLOWED_ORIGINS), one session store for every component, and
// the failed sign-in the address came back with, if any, taken out of the address bar.
import { createMediaBffClient, createSessionStore, readSignInError } from '@media-bff/client'

export const bff = createMediaBffClient({ baseUrl: document.documentElement.dataset.mediaBff })
export const session = createSessionStore(bff)
export const signInError = readSignInError(undefined, { removeFromAddressBar: true })
