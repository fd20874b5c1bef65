// A sign-in from before sessions had handles opens its live channel: it is given a handle as the
// request arrives (plugins/session.ts), and that handle is saved before the channel opens
// (plugins/live-updates.ts), so what is announced to the session reaches the channel.
import t from 'tap'
import { startStack } from '../helpers/bff.js'
import { signIn } from '../helpers/sign-in.js'
import { openChannel } from '../helpers/event-stream.js'
import { sessionRecords } from '../helpers/session-records.js'

t.test('a session without a handle opens a channel under the handle it keeps', async (t) => {
  const stack = await startStack()
  t.teardown(stack.close)
  const { app, config } = stack.bff
  const browser = stack.bff.browser()
  t.equal((await signIn(browser)).callback.status, 302)
  const signed = decodeURIComponent(String(browser.cookies.get(config.session.cookieName)))
  const sid = signed.slice(0, signed.lastIndexOf('.'))
  const records = sessionRecords(app, config)
  const read = async (): Promise<Record<string, unknown>> => ({ ...await records.read(sid) })
  const { handle: _dropped, ...withoutHandle } = await read()
  t.ok(await records.write(sid, withoutHandle), 'written over the record read')
  t.equal((await read()).handle, undefined, 'stored without a handle')

  const channel = await openChannel(browser)
  t.teardown(channel.close)
  t.equal(channel.status, 200)
  const kept = (await read()).handle
  t.type(kept, 'string', 'the handle given as the request arrived is saved')
  app.live.announceSessionsEnded([kept as string], 'ended')
  t.same(await channel.waitFor('session'), [{ ended: true, reason: 'ended' }], 'what is announced to that handle reaches the channel')
})
