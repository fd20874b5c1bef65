// Live updates end to end over HTTP, once per store (live-events-memory.test.ts, and
// live-events-redis.test.ts where the page's channel is on a second instance): the emulator
// processes an upload and sends its signed webhooks to media-bff, which reads the file with the
// uploader's token and tells that person's open pages, and nobody else's. Every kind of bad
// webhook is refused, counted and logged, and changes nothing.
import type { Test } from 'tap'
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { request } from 'undici'
import { startBff, startStack, testTokenKey, type TestBff } from '../helpers/bff.js'
import type { Browser } from '../helpers/http-client.js'
import { signIn } from '../helpers/sign-in.js'
import { uploadDirect } from '../helpers/direct-upload.js'
import { openChannel, type OpenChannel } from '../helpers/event-stream.js'
import { signatureOf } from '../../src/webhooks/webhook-signature.js'
import { issuedTokens } from '../helpers/issued-tokens.js'
import { pollUntil } from '../emulator/poll.js'

export const WEBHOOK_KEY = 'webhook-key-0123456789-abcdefghijkl'
const OPERATOR_TOKEN = 'operator-token-0123456789-abcdefghijklmnop'

export function liveEventsSuite (t: Test, storeEnv: () => Record<string, string>, twoInstances: boolean): void {
  /** media-bff and the emulator, the emulator's webhooks (alice's and bob's accounts) sent to media-bff. */
  const stackWith = async (t: Test, env: Record<string, string> = {}) => {
    // One deployment: the instances share the store and its keys.
    const common = { OAUTH_SCOPES: 'basic user.info upload manage', WEBHOOK_KEYS: WEBHOOK_KEY, OPERATOR_TOKEN, TOKEN_KEYS: testTokenKey(), ...storeEnv(), ...env }
    const stack = await startStack({ emulator: { processingMs: 1500, webhookRetryDelaysMs: [100, 200, 400] }, env: common })
    t.teardown(stack.close)
    const second = twoInstances ? await startBff(stack.emulator, common) : stack.bff
    if (twoInstances) t.teardown(second.close)
    for (const user of ['alice', 'bob']) stack.emulator.addWebhook({ user, url: `${stack.bff.url}/webhooks/media`, key: WEBHOOK_KEY })
    const channels: OpenChannel[] = []
    t.teardown(() => { for (const channel of channels) channel.close() })
    /** A page's channel, on the second instance when there is one (with the same cookies). */
    const channelOf = async (browser: Browser, headers?: Record<string, string>): Promise<OpenChannel> => {
      const there = second.browser()
      for (const [name, value] of browser.cookies) there.cookies.set(name, value)
      const channel = await openChannel(there, headers)
      channels.push(channel)
      return channel
    }
    return { ...stack, second, channelOf }
  }
  const signedIn = async (browser: Browser, user = 'alice'): Promise<Browser> => {
    const { callback } = await signIn(browser, { user })
    if (callback.status !== 302) throw new Error(`sign-in answered ${callback.status}`)
    return browser
  }
  /** Registers, uploads and finishes one file; resolves to its id. */
  const upload = async (browser: Browser, title: string): Promise<number> => {
    const record = (await browser.post('/uploads/register', { folder_id: 0, title })).json()
    const sent = await uploadDirect(record.url_upload_direct, 'clip.mp4', 'not really a video')
    if (sent.status !== 200) throw new Error(`upload answered ${sent.status}`)
    const finished = await browser.post(record.finish_url)
    return finished.json().files[0].file_id
  }
  /**
   * alice's page is open before she uploads, so what it heard is known, never a race with the
   * file's processing: resolves once it heard the file finished and then ready.
   */
  const uploadHeard = async (stack: Awaited<ReturnType<typeof stackWith>>, title: string) => {
    const alice = await signedIn(stack.bff.browser())
    const page = await stack.channelOf(alice)
    const fileId = await upload(alice, title)
    await page.waitFor('file', 2)
    return { alice, page, fileId }
  }
  const counter = async (bff: TestBff, name: string, labels: string): Promise<number> => {
    const text = (await request(`${bff.url}/metrics`)).body.text()
    const series = labels === '' ? `${name} ` : `${name}{${labels}} `
    const line = (await text).split('\n').find((l) => l.startsWith(series))
    return line === undefined ? 0 : Number(line.split(' ').pop())
  }

  /** Follow-ups by outcome, on whichever instance did them (on Redis every instance works the queue). */
  const followUps = async (stack: Awaited<ReturnType<typeof stackWith>>, labels: string): Promise<number> =>
    await counter(stack.bff, 'media_bff_webhook_follow_ups_total', labels) + (twoInstances ? await counter(stack.second, 'media_bff_webhook_follow_ups_total', labels) : 0)

  t.test('alice\'s upload: processing then ready on each of her pages; bob hears nothing', async (t) => {
    const stack = await stackWith(t)
    const alice = await signedIn(stack.bff.browser())
    const aliceElsewhere = await signedIn(stack.bff.browser())
    const bob = await signedIn(stack.bff.browser(), 'bob')
    const pages = [await stack.channelOf(alice), await stack.channelOf(alice), await stack.channelOf(aliceElsewhere)]
    const bobsPage = await stack.channelOf(bob)
    t.equal(pages[0]?.status, 200)
    t.match(pages[0]?.headers['content-type'], /^text\/event-stream/)
    t.equal(pages[0]?.headers['cache-control'], 'no-store')
    t.equal(pages[0]?.headers['x-accel-buffering'], 'no')

    const fileId = await upload(alice, 'Launch video')
    for (const page of pages) {
      const files = await page.waitFor('file', 2)
      t.match(files[0], { file_id: fileId, title: 'Launch video', status: 'processing', event: 'finished' }, 'at once: finished, processing')
      // The upload's webhook tells it when its follow-up runs after the processing (a slow machine).
      t.match(files[1], { file_id: fileId, title: 'Launch video', status: 'ready', event: /^(file_upload|file_transcode)$/ }, 'then: processed, ready')
    }
    t.ok(stack.emulator.webhooksSent().some((sent) => sent.event === 'file_transcode' && sent.status === 202), 'the webhook was taken with 202')
    await sleep(300)
    t.same(bobsPage.data('file'), [], 'bob\'s page heard nothing of it')
    const tokens = await issuedTokens(stack.emulator.baseUrl)
    const carried = JSON.stringify([...pages, bobsPage].map((page) => page.events))
    t.notOk([...tokens.access, ...tokens.refresh].some((token) => carried.includes(token)), 'no token in anything a channel carried')
    t.equal(await followUps(stack, 'outcome="announced"'), 1)
    t.ok(await counter(stack.second, 'media_bff_events_delivered_total', '') >= 6, 'delivered where the pages are')
  })

  t.test('the webhook\'s own data is never passed on: what the service says of the file is', async (t) => {
    const stack = await stackWith(t)
    const { alice, page, fileId } = await uploadHeard(stack, 'Real title')
    const before = page.data('file').length
    // The file changes at the service (pages are told each state of a file once): the webhook
    // about it says something else again.
    t.equal((await alice.fetch('PUT', `/api/files/${fileId}`, { headers: { 'x-csrf': '1', 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Renamed' }) })).status, 200)
    const answer = await stack.emulator.sendWebhook({ user: 'alice', event: 'file_transcode', data: { file_id: fileId, title: '<img src=x onerror=alert(1)>', status: 'hacked', urls: { file: 'https://evil.example/x' } } })
    t.equal(answer.status, 202)
    const files = await page.waitFor('file', before + 1)
    t.match(files.at(-1), { file_id: fileId, title: 'Renamed', status: 'ready' })
    t.notMatch(JSON.stringify(files.at(-1)), /hacked|evil|onerror/)
  })

  t.test('bad webhooks are refused, counted and logged, and change nothing', async (t) => {
    const stack = await stackWith(t)
    const { alice, page, fileId } = await uploadHeard(stack, 'Clip')
    // Something new to tell of the file, so the good delivery below has an announcement to make.
    t.equal((await alice.fetch('PUT', `/api/files/${fileId}`, { headers: { 'x-csrf': '1', 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Clip, renamed' }) })).status, 200)
    const heard = page.data('file').length
    const data = { file_id: fileId }
    const now = String(Math.floor(Date.now() / 1000))

    const forged = await stack.emulator.sendWebhook({ user: 'alice', event: 'file_transcode', data, key: 'not-the-key-0123456789-xyz' })
    t.equal(forged.status, 400, 'forged signature')
    const stale = await stack.emulator.sendWebhook({ user: 'alice', event: 'file_transcode', data, timestamp: String(Number(now) - 3600) })
    t.equal(stale.status, 400, 'stale timestamp')
    const future = await stack.emulator.sendWebhook({ user: 'alice', event: 'file_transcode', data, timestamp: String(Number(now) + 3600) })
    t.equal(future.status, 400, 'a timestamp from the future')

    // A delivery captured on its way: its signature with another body (another id) is refused;
    // the very same delivery again is a retry, taken and not acted on twice.
    const token = 'a'.repeat(50)
    const first = await stack.emulator.sendWebhook({ user: 'alice', event: 'file_transcode', data, timestamp: now, token })
    t.equal(first.status, 202)
    const captured = stack.emulator.webhooksSent().at(-1)?.body
    const replayedToken = await stack.emulator.sendWebhook({ user: 'alice', event: 'file_trash', data, timestamp: now, token })
    t.equal(replayedToken.status, 400, 'a token seen before, with another id')
    const resent = await request(`${stack.bff.url}/webhooks/media`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(captured) })
    t.equal(resent.statusCode, 200, 'the same delivery again')
    t.same(await resent.body.json(), { status: 'duplicate' })
    const replayedId = await stack.emulator.sendWebhook({ user: 'alice', event: 'file_transcode', data, id: captured?.id })
    t.equal(replayedId.status, 200, 'an id seen before, freshly signed: the service retrying')

    const big = { ...captured, signature: { timestamp: now, token: 'b'.repeat(50), signature: signatureOf(WEBHOOK_KEY, now, 'b'.repeat(50)) }, id: randomUUID(), data: { file_id: fileId, filler: 'x'.repeat(70 * 1024) } }
    const oversized = await request(`${stack.bff.url}/webhooks/media`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(big) })
    t.equal(oversized.statusCode, 413, 'an oversized body, signed or not')
    t.equal(((await oversized.body.json()) as { error: string }).error, 'payload_too_large')
    const tenant = await request(`${stack.bff.url}/webhooks/media/elsewhere`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...big, data }) })
    t.equal(tenant.statusCode, 404, 'a tenant media-bff does not take webhooks for')
    await tenant.body.dump()
    const garbage = await request(`${stack.bff.url}/webhooks/media`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"signature":' })
    t.equal(garbage.statusCode, 400, 'not JSON')
    await garbage.body.dump()

    await page.waitFor('file', heard + 1)
    await sleep(300)
    t.equal(page.data('file').length, heard + 1, 'the one good delivery was announced once; nothing else reached the page')
    const outcomes = ['refused_signature', 'refused_stale', 'refused_replay', 'refused_size', 'refused_tenant', 'refused_body']
    for (const outcome of outcomes) t.ok(await counter(stack.bff, 'media_bff_webhooks_total', `outcome="${outcome}"`) >= 1, `${outcome} counted`)
    t.equal(await counter(stack.bff, 'media_bff_webhooks_total', 'outcome="refused_stale"'), 2)
    t.equal(await counter(stack.bff, 'media_bff_webhooks_total', 'outcome="duplicate"'), 2)
    const refusals = stack.bff.logs.filter((line) => line.includes('a webhook was not taken'))
    t.equal(refusals.length, 7, 'each refusal logged once')
    t.notOk(stack.bff.logs.some((line) => line.includes(token) || line.includes(WEBHOOK_KEY)), 'no token or key in any log line')
  })

  t.test('a file the person cannot read announces nothing; nor does one media-bff never saw finished', async (t) => {
    const stack = await stackWith(t)
    // Not processed while the test looks: its only webhooks are the upload's and the trash's.
    stack.emulator.configure({ processingMs: 600_000 })
    const alice = await signedIn(stack.bff.browser())
    // Open before the upload, and past its finish: a finish is announced after its answer.
    const page = await stack.channelOf(alice)
    const fileId = await upload(alice, 'Short-lived')
    await page.waitFor('file', 1)
    // The service's file_upload, sent as the file arrived, followed up first (on Redis it may be
    // followed up after the finish, by either instance).
    await pollUntil('the service\'s file_upload taken', () => stack.emulator.webhooksSent(), (sent) => sent.some((one) => one.event === 'file_upload' && one.status === 202))
    await stack.bff.app.live.webhooks.idle()
    const unreadableBefore = await followUps(stack, 'outcome="unreadable"')
    // Gone before it was processed: the service's file_trash (and any later hint) finds nothing.
    t.equal((await alice.fetch('DELETE', `/api/files/${fileId}`, { headers: { 'x-csrf': '1' } })).status, 200)
    // media-bff's record says alice finished a file the service does not show her (as if it had
    // been moved away from her): asked with her token, the service says there is no such file.
    const aliceId = String((await alice.get('/auth/session')).json().user.id)
    const [mine] = await stack.bff.app.sessions.of({ tenant: 'default', userId: aliceId })
    if (mine === undefined) throw new Error('alice has no indexed session')
    await stack.bff.app.uploadedFiles.claimShowing('default', 424242, {}, { handle: mine.handle, sid: mine.sid, grantId: mine.grantId, userId: aliceId })
    t.equal((await stack.emulator.sendWebhook({ user: 'alice', event: 'file_transcode', data: { file_id: 424242 } })).status, 202)
    await pollUntil('the service\'s file_trash taken', () => stack.emulator.webhooksSent(), (sent) => sent.some((one) => one.event === 'file_trash' && one.status === 202))
    await stack.bff.app.live.webhooks.idle()
    // Every file_upload comes before its finish, so media-bff does not know the file yet.
    const unknownBefore = await followUps(stack, 'outcome="unknown_file"')
    t.equal((await stack.emulator.sendWebhook({ user: 'alice', event: 'file_transcode', data: { file_id: 987654 } })).status, 202)
    await stack.bff.app.live.webhooks.idle()
    t.ok(stack.emulator.webhooksSent().some((sent) => sent.event === 'file_trash' && sent.status === 202), 'the service\'s file_trash was taken')
    t.same(page.data('file').map((file) => file.event), ['finished'], 'alice\'s page heard nothing after the finish')
    t.equal(await followUps(stack, 'outcome="unreadable"'), unreadableBefore + 2, 'the deleted file and the one not hers')
    t.equal(await followUps(stack, 'outcome="unknown_file"'), unknownBefore + 1, 'the one never finished through media-bff')
  })

  t.test('a file whose person is unknown is announced to the sign-in that finished it, only while it lives', async (t) => {
    const stack = await stackWith(t)
    const { alice, page, fileId } = await uploadHeard(stack, 'Nameless')
    const before = page.data('file').length
    const aliceId = String((await alice.get('/auth/session')).json().user.id)
    const [mine] = await stack.bff.app.sessions.of({ tenant: 'default', userId: aliceId })
    if (mine === undefined) throw new Error('alice has no indexed session')
    // As when the service's user/info did not answer at sign-in: no person, only this sign-in.
    await stack.bff.app.uploadedFiles.claimShowing('default', fileId, {}, { handle: mine.handle, sid: mine.sid, grantId: mine.grantId })
    t.equal((await stack.emulator.sendWebhook({ user: 'alice', event: 'file_transcode', data: { file_id: fileId } })).status, 202)
    t.match((await page.waitFor('file', before + 1)).at(-1), { file_id: fileId, status: 'ready' }, 'its own pages hear of it')
    t.equal((await alice.post('/auth/logout')).status, 200)
    const nobodyBefore = await followUps(stack, 'outcome="nobody_signed_in"')
    t.equal((await stack.emulator.sendWebhook({ user: 'alice', event: 'file_transcode', data: { file_id: fileId } })).status, 202)
    await stack.bff.app.live.webhooks.idle()
    t.equal(await followUps(stack, 'outcome="nobody_signed_in"'), nobodyBefore + 1, 'signed out: its grant is not used for it')
  })

  t.test('the channel is for signed-in pages of allowed origins, and resumes after a reconnect', async (t) => {
    const stack = await stackWith(t)
    const stranger = await openChannel(stack.second.browser())
    t.equal(stranger.status, 401)
    t.equal(stranger.refusal.error, 'login_required')
    const alice = await signedIn(stack.bff.browser())
    const foreign = await stack.channelOf(alice, { origin: 'https://evil.example' })
    t.equal(foreign.status, 403)
    t.equal(foreign.refusal.error, 'csrf_failed')
    const page = await stack.channelOf(alice)
    await upload(alice, 'First')
    await page.waitFor('file', 2)
    const seen = page.lastEventId()
    page.close()
    await upload(alice, 'Second')
    await sleep(1000)
    const back = await stack.channelOf(alice, { 'last-event-id': seen })
    const missed = await back.waitFor('file', 2)
    t.match(missed, [{ title: 'Second', status: 'processing' }, { title: 'Second', status: 'ready' }], 'what came while it was away, in order')
    const lost = await stack.channelOf(alice, { 'last-event-id': '0000000000.000.gone' })
    await lost.waitFor('resync')
    t.pass('an id from too long ago: resync')
  })

  t.test('a session\'s end closes its channels everywhere, saying why', async (t) => {
    const stack = await stackWith(t)
    const alice = await signedIn(stack.bff.browser())
    const aliceLaptop = await signedIn(stack.bff.browser())
    const bob = await signedIn(stack.bff.browser(), 'bob')
    const here = await stack.channelOf(alice)
    const laptop = await stack.channelOf(aliceLaptop)
    const bobsPage = await stack.channelOf(bob)

    t.equal((await alice.post('/auth/sessions/end-others')).status, 200)
    await laptop.ended
    t.same(laptop.data('session'), [{ ended: true, reason: 'ended' }], 'ended from another device')
    t.ok(here.isOpen(), 'the one that ended the others stays')

    t.equal((await alice.post('/auth/logout')).status, 200)
    await here.ended
    t.same(here.data('session'), [{ ended: true, reason: 'signed_out' }])

    const bobId = String((await bob.get('/auth/session')).json().user.id)
    const lever = await request(`${stack.bff.url}/operator/users/default/${encodeURIComponent(bobId)}/sessions`, { method: 'DELETE', headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'x-csrf': '1' } })
    t.equal(lever.statusCode, 200)
    await lever.body.dump()
    await bobsPage.ended
    t.same(bobsPage.data('session'), [{ ended: true, reason: 'ended' }], 'ended by an operator')
    t.equal(await counter(stack.second, 'media_bff_event_streams', ''), 0, 'no channel left open')
  })

  t.test('signing in again in the same browser moves its pages to the new session', async (t) => {
    const stack = await stackWith(t)
    const alice = await signedIn(stack.bff.browser())
    const page = await stack.channelOf(alice)
    await signedIn(alice)
    await page.ended
    t.same(page.data('session'), [{ ended: true, reason: 'replaced' }])
    const again = await stack.channelOf(alice)
    t.equal(again.status, 200, 'the new cookie opens a channel at once')
  })

  if (!twoInstances) {
    t.test('without WEBHOOK_KEYS no webhook is taken; the channel still carries finishes and session ends', async (t) => {
      const stack = await stackWith(t, { WEBHOOK_KEYS: '' })
      const answer = await request(`${stack.bff.url}/webhooks/media`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
      // No such route: like any POST without X-CSRF, it is refused before anything else.
      t.equal(answer.statusCode, 403)
      await answer.body.dump()
      const alice = await signedIn(stack.bff.browser())
      const page = await stack.channelOf(alice)
      await upload(alice, 'Plain')
      t.match((await page.waitFor('file'))[0], { title: 'Plain', status: 'processing' })
      t.ok(stack.emulator.webhooksSent().length > 0, 'the emulator sent its webhooks')
      t.notOk(stack.emulator.webhooksSent().some((sent) => sent.status >= 200 && sent.status < 300), 'and none was taken')
    })
  }
}
