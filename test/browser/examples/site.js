// A page of www.example.org (listed in media-bff's ALLOWED_ORIGINS) that uses media-bff at
// media.example.org, without a bundler: the module comes from media-bff itself, the version
// that matches it. Elements: #sign-in, #files, #upload, #cancel, #progress, #status.
import { createMediaBffClient, MediaBffError } from 'https://media.example.org/client/media-bff-client.js'

const bff = createMediaBffClient({ baseUrl: 'https://media.example.org' })
const $ = (selector) => document.querySelector(selector)
// Messages may hold the media service's own words: text, never HTML.
const say = (text) => { $('#status').textContent = text }

// Sign-in and consent come back to this very page (path, query and fragment).
$('#sign-in').addEventListener('click', () => { bff.signIn() })

let controller
$('#cancel').addEventListener('click', () => { controller?.abort() })
$('#upload').addEventListener('click', async () => {
  const files = [...$('#files').files]
  controller = new AbortController()
  const { signal } = controller
  try {
    const registration = await bff.registerUpload({ folderId: 0, options: { autofinish: false } }, { signal })
    const sent = new Map()
    await Promise.all(files.map(async (file) => await bff.uploadFile(registration, file, {
      signal,
      onProgress: (loaded) => {
        sent.set(file, loaded)
        $('#progress').value = [...sent.values()].reduce((a, b) => a + b, 0) / files.reduce((a, f) => a + f.size, 0)
      }
    })))
    const { files: stored } = await bff.finishUpload(registration, { signal })
    say(`Uploaded ${stored.length} file(s): ${stored.map((file) => file.title).join(', ')}`)
  } catch (error) {
    if (!(error instanceof MediaBffError)) throw error
    // Signed out, or the "upload" permission is missing: sign-in or consent, back here.
    if (!bff.follow(error)) say(error.message)
  }
})

// Every tab of this site learns when the session ends or is about to.
const watch = bff.watchSession()
watch.on('change', ({ session }) => { $('#sign-in').hidden = session.authenticated })
watch.on('ended', ({ reason }) => { say(reason === 'expired' ? 'Your session timed out.' : 'You are signed out.') })
watch.on('expiring', ({ at, absolute }) => {
  // The absolute end cannot move; the idle one can, if the person is still there.
  say(absolute ? `Your session ends at ${at.toLocaleTimeString()}.` : 'You will be signed out soon: click here to stay signed in.')
})
$('#status').addEventListener('click', () => { watch.staySignedIn() })
await watch.check()
