// Unit and property tests of src/uploads/upload-policy.ts: what the browser asks for is capped
// by the operator's policy, and the upload URL handed to the browser is checked.
import t from 'tap'
import fc from 'fast-check'
import { checkUploadUrl, refuseUploadUrl, registrationFields, type UploadOptions } from '../../src/uploads/upload-policy.js'
import type { Config } from '../../src/config/config.js'
import { UpstreamError } from '../../src/media/upstream-error.js'

type Policy = Config['upload']
const noPolicy: Policy = { allowedHosts: [], maxFilesize: undefined, maxFiles: undefined, maxSize: undefined, fileExtensions: undefined }

t.test('hide_response is always on; title and options pass through without a policy', async (t) => {
  t.same(registrationFields(noPolicy, 3, 'A title', { max_files: 2, no_transcode: true, autofinish: false, file_extensions: '.JPG, png' }), {
    folder_id: 3, hide_response: true, title: 'A title', max_files: 2, file_extensions: 'jpg,png', no_transcode: true, autofinish: false
  })
})

t.test('an empty intersection of extensions keeps the operator\'s list, never "anything"', async (t) => {
  const policy = { ...noPolicy, fileExtensions: ['jpg', 'png'] }
  t.equal(registrationFields(policy, 0, undefined, { file_extensions: ['exe'] }).file_extensions, 'jpg,png')
  t.equal(registrationFields(policy, 0, undefined, { file_extensions: ['png', 'exe'] }).file_extensions, 'png')
  t.equal(registrationFields(policy, 0, undefined, {}).file_extensions, 'jpg,png')
})

const limit = fc.option(fc.integer({ min: 1, max: 1e12 }), { nil: undefined })
const extensions = fc.option(fc.array(fc.constantFrom('jpg', 'png', 'mp4', 'exe', 'pdf'), { minLength: 1, maxLength: 4 }), { nil: undefined })

t.test('property: the fields never ask for more than the operator allows', async (t) => {
  fc.assert(fc.property(limit, limit, limit, extensions, limit, limit, limit, extensions, (capFilesize, capFiles, capSize, capExtensions, filesize, files, size, asked) => {
    const policy: Policy = { allowedHosts: [], maxFilesize: capFilesize, maxFiles: capFiles, maxSize: capSize, fileExtensions: capExtensions }
    const options: UploadOptions = { max_filesize: filesize, max_files: files, max_size: size, file_extensions: asked }
    const fields = registrationFields(policy, 1, undefined, options)
    const within = (value: unknown, cap: number | undefined): boolean => cap === undefined || (typeof value === 'number' && value <= cap)
    const sent = typeof fields.file_extensions === 'string' ? fields.file_extensions.split(',') : undefined
    return fields.hide_response === true &&
      within(fields.max_filesize, capFilesize) && within(fields.max_files, capFiles) && within(fields.max_size, capSize) &&
      (capExtensions === undefined || (sent !== undefined && sent.every((ext) => (capExtensions as string[]).includes(ext))))
  }), { numRuns: 2000 })
  t.pass('2000 generated policies and requests')
})

t.test('checkUploadUrl: https (http only for an http tenant), no credentials, allowed hosts', async (t) => {
  t.same(checkUploadUrl('https://up.example/u?s=1', 'https://t.example/api', []), { ok: true })
  t.same(checkUploadUrl('https://up.example:8443/u', 'https://t.example/api', ['up.example:8443']), { ok: true })
  t.same(checkUploadUrl('http://127.0.0.1:4001/u', 'http://127.0.0.1:4000/api', []), { ok: true }, 'plain http for a plain-http (emulator) tenant')
  for (const [url, hosts] of [['http://up.example/u', []], ['javascript:alert(1)', []], ['data:text/html,x', []], ['https://u:p@up.example/', []], ['https://evil.example/', ['up.example']], ['not a url', []], ['https://up.example.evil/', ['up.example']]] as const) {
    t.equal(checkUploadUrl(url, 'https://t.example/api', [...hosts]).ok, false, url)
  }
})

t.test('refuseUploadUrl turns a refusal into a 502 the browser can read', async (t) => {
  t.doesNotThrow(() => { refuseUploadUrl({ ok: true }) })
  const error = (() => { try { refuseUploadUrl({ ok: false, reason: 'the upload host x is not in UPLOAD_ALLOWED_HOSTS' }) } catch (caught) { return caught } })() as UpstreamError
  t.ok(error instanceof UpstreamError)
  t.equal(error.fields.error, 'forbidden_upload_host')
  t.match(error.fields.error_description, /UPLOAD_ALLOWED_HOSTS/)
})
