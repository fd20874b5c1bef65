// The site's own page on the site's own origin, media-bff mounted at /media-bff by the same
// nginx (docker/nginx-same-origin.conf): the module, the calls and the live channel all go to
// /media-bff/... on this origin, so there is no CORS at all. Uploading needs the `upload` scope,
// which the page asks for before a file is picked (the module's access), and comes back here.
// Elements: #sign-in, #who, #folders, #allow-upload, #file, #upload, #files (data-status per
// file), #status; body[data-upload] says the upload scope's access.
import { createMediaBffClient, MediaBffError, readSignInError } from '/media-bff/client/media-bff-client.js'

const bff = createMediaBffClient({ basePath: '/media-bff' })
const access = bff.access()
const $ = (selector) => document.querySelector(selector)
const say = (text) => { $('#status').textContent = text }

$('#sign-in').addEventListener('click', () => { bff.signIn() })
$('#allow-upload').addEventListener('click', () => { access.ask('upload', { state: { note: 'asked before a file was picked' } }) })

const showFile = (file) => {
  const id = `file-${file.file_id}`
  const item = document.getElementById(id) ?? $('#files').appendChild(Object.assign(document.createElement('li'), { id }))
  item.textContent = file.title ?? file.filename ?? String(file.file_id)
  item.dataset.status = file.status ?? 'unknown'
}

$('#upload').addEventListener('click', async () => {
  try {
    const registration = await bff.registerUpload({ folderId: 0, options: { autofinish: false } })
    await bff.uploadFile(registration, $('#file').files[0])
    const { files } = await bff.finishUpload(registration)
    files.forEach(showFile)
    say(`Uploaded ${files.length} file(s)`)
  } catch (error) {
    if (!(error instanceof MediaBffError)) throw error
    if (!bff.follow(error)) say(error.message)
  }
})

const signInError = readSignInError(undefined, { removeFromAddressBar: true })
const { session, scopes } = await access.check()
const back = access.returned(signInError)
if (back !== undefined) say(back.granted ? `Uploads allowed (${back.state?.note ?? ''})` : back.refused ? 'Uploads not allowed this time' : 'This account cannot upload')
const upload = scopes.upload
document.body.dataset.upload = upload
$('#allow-upload').hidden = upload !== 'grantable'
$('#file').disabled = $('#upload').disabled = upload !== 'granted'
$('#sign-in').hidden = session.authenticated
if (session.authenticated) {
  $('#who').textContent = session.user.name ?? ''
  const contents = await bff.folders.contents(0)
  for (const folder of contents.folders) $('#folders').appendChild(Object.assign(document.createElement('li'), { textContent: folder.name }))
  const live = bff.liveEvents()
  live.on('open', () => { document.body.dataset.live = 'open' })
  live.on('file', ({ file }) => { showFile(file) })
}
