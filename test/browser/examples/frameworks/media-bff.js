// What the three example pages share, as a site would have it in one module: the client, one
// session store for every component, and the failed sign-in the address came back with, if any,
// taken out of the address bar. Where media-bff is comes from the page (the test serves the pages
// twice: with media-bff on an origin of its own, listed in its ALLOWED_ORIGINS, and with media-bff
// under /media-bff of the pages' own origin, its BASE_PATH).
import { createMediaBffClient, createSessionStore, readSignInError } from '@media-bff/client'

const { mediaBff = '', basePath = '' } = document.documentElement.dataset
export const bff = createMediaBffClient({ baseUrl: mediaBff, basePath })
export const session = createSessionStore(bff)
export const signInError = readSignInError(undefined, { removeFromAddressBar: true })
