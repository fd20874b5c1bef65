// A page on another origin (one of media-bff's ALLOWED_ORIGINS) that never lets go of itself:
// sign-in, consent and the "ask, then try once more" of a call, each in a popup from a click
// (test/browser/popup-consent.test.ts). MEDIA_BFF_URL is put in by the test.
import { createMediaBffClient } from 'MEDIA_BFF_URL/client/media-bff-client.js'

const bff = createMediaBffClient({ baseUrl: 'MEDIA_BFF_URL' })
const access = bff.access()
const result = document.getElementById('result')
const show = (value) => { result.textContent = JSON.stringify(value) }
const refresh = async () => {
  const session = await bff.getSession()
  document.getElementById('who').textContent = session.authenticated ? `${session.user.name} (${session.scopes.join(' ')})` : 'signed out'
}

document.getElementById('sign-in').addEventListener('click', () => {
  bff.signInInPopup().then(async (answer) => { await refresh(); show(answer) })
})
document.getElementById('sign-in-quietly').addEventListener('click', () => {
  bff.signInInPopup({ fallback: false }).then(show)
})
document.getElementById('allow-upload').addEventListener('click', () => {
  access.askInPopup('upload').then(async (answer) => { await refresh(); show({ outcome: answer.outcome, missing: answer.missing }) })
})
document.getElementById('register').addEventListener('click', () => {
  bff.registerUpload({ folderId: 0 }, { consent: 'popup' }).then(
    async (registration) => { await refresh(); show({ registered: typeof registration.url_upload_direct === 'string' }) },
    (error) => { show({ error: error.code }) }
  )
})
// What a page holds that a navigation would lose.
window.loadedAt = Date.now()
// `?click=<id>`: the page clicks that button itself as it loads, as no person did (a popup blocker stops it).
const click = new URLSearchParams(window.location.search).get('click')
if (click !== null) {
  window.history.replaceState(null, '', '/')
  document.getElementById(click)?.click()
}
refresh().catch((error) => { show({ error: String(error) }) })
