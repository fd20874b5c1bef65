// The session store (public/client/session-store.ts) as UI frameworks hold it: subscribe calls the
// listener at once and after each change, getSnapshot keeps the very same object while the session
// is unchanged (useSyncExternalStore renders again for any new reference), Svelte's own store
// helpers take it as a store, and the watching runs only while someone listens. The real client
// and session watch, against a stand-in fetch; the frameworks themselves in Chromium:
// test/browser/framework-pages.test.ts.
import t, { type Test } from 'tap'
import { derived, get } from 'svelte/store'
import { createMediaBffClient, createSessionStore, type Session } from '../../public/client/media-bff-client.js'

const signedIn = (name: string): Session => ({
  authenticated: true,
  user: { id: '7', name, email: null },
  tenant: 'default',
  scopes: ['basic'],
  expires_at: '2030-01-01T00:00:00.000Z',
  idle_expires_at: '2030-01-01T00:00:00.000Z',
  absolute_expires_at: '2030-01-02T00:00:00.000Z',
  reauth_required: false
})
const signedOut: Session = { authenticated: false, login_url: '/auth/login' }

/** media-bff as far as the store asks it: GET /auth/session answers `current()` (a new object each time). */
function stubBff (t: Test, current: () => Session): { asked: () => number } {
  let asked = 0
  const original = globalThis.fetch
  globalThis.fetch = async (input: string | URL | Request) => {
    const url = String(input)
    if (url.endsWith('/auth/session')) asked++
    const body = url.endsWith('/auth/logout') ? { logged_out: true } : current()
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } })
  }
  t.teardown(() => { globalThis.fetch = original })
  return { asked: () => asked }
}
/** A moment for what may still come: before asserting that nothing more did. */
const settle = async (): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, 20)) }
/** Until something expected happened (a loaded machine may take longer than a moment). */
const until = async (check: () => boolean): Promise<void> => {
  const deadline = Date.now() + 5_000
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5))
}

t.test('subscribe: at once with what is known, then on each change; getSnapshot is the same object until it changes', async (t) => {
  let answer = signedIn('Alice')
  const bff = stubBff(t, () => structuredClone(answer))
  const store = createSessionStore(createMediaBffClient())
  t.equal(bff.asked(), 0, 'nothing asked before anyone listens')
  const heard: Array<Session | undefined> = []
  const stop = store.subscribe((session) => { heard.push(session) })
  t.teardown(stop)
  t.same(heard, [undefined], 'called at once: not known yet')
  await until(() => heard.length === 2)
  t.equal(bff.asked(), 1, 'asked once, though the session ends years from now (a longer setTimeout than 24.8 days fires at once)')
  t.same(heard, [undefined, answer])
  const first = store.getSnapshot()
  t.equal(first, heard[1], 'the snapshot is what the listener was given')
  t.equal(store.getSnapshot(), first, 'asked again: the same object')

  // The watch asks again (as on focus); an equal answer is a new object from JSON, not a change.
  const watch = createMediaBffClient().watchSession()
  t.teardown(watch.stop)
  await watch.check()
  await settle()
  t.equal(store.getSnapshot(), first, 'an equal answer keeps the object')
  t.equal(heard.length, 2, 'and tells nobody')

  answer = signedIn('Alice Liddell')
  await watch.check()
  await until(() => heard.length === 3)
  t.equal(heard.length, 3, 'a change is told once')
  t.not(store.getSnapshot(), first, 'a new object for a new session')
  t.same(store.getSnapshot(), answer)
  t.equal(store.getServerSnapshot(), undefined, 'server rendering: not known')
})

t.test('a sign-out in this tab and in another reaches the store', async (t) => {
  const bff = stubBff(t, () => signedIn('Alice'))
  const client = createMediaBffClient()
  const store = createSessionStore(client)
  const other = createSessionStore(createMediaBffClient())
  const heard: Array<Session | undefined> = []
  const stops = [store.subscribe((session) => { heard.push(session) }), other.subscribe(() => {})]
  t.teardown(() => { for (const stop of stops) stop() })
  await until(() => bff.asked() === 2 && store.getSnapshot() !== undefined && other.getSnapshot() !== undefined)
  t.equal(bff.asked(), 2, 'each store asked once')
  await client.logout()
  t.same(store.getSnapshot(), signedOut, 'this tab: at once')
  await until(() => other.getSnapshot()?.authenticated === false)
  t.same(other.getSnapshot(), signedOut, 'another tab of this browser: over the BroadcastChannel, without asking')
  t.equal(bff.asked(), 2)
  t.same(heard.at(-1), signedOut)
})

t.test('the watching runs while someone listens: unsubscribing and subscribing at once asks nothing again', async (t) => {
  const bff = stubBff(t, () => signedIn('Alice'))
  const store = createSessionStore(createMediaBffClient())
  const first = store.subscribe(() => {})
  await until(() => bff.asked() === 1 && store.getSnapshot() !== undefined)
  t.equal(bff.asked(), 1)
  // React's StrictMode, or a component replaced by another: gone and back in the same task.
  first()
  first()
  const second = store.subscribe(() => {})
  await settle()
  t.equal(bff.asked(), 1, 'the same watch went on')
  second()
  await settle()
  const snapshot = store.getSnapshot()
  const heard: Array<Session | undefined> = []
  const third = store.subscribe((session) => { heard.push(session) })
  t.teardown(third)
  t.equal(heard[0], snapshot, 'a new subscriber hears the last session known at once')
  await until(() => bff.asked() === 2)
  await settle()
  t.equal(bff.asked(), 2, 'nobody listened for a while: a new watch asked again')
  t.equal(store.getSnapshot(), snapshot, 'and the same answer kept the same object')
  const listener = (): void => {}
  const a = store.subscribe(listener)
  const b = store.subscribe(listener)
  a()
  t.teardown(b)
  await settle()
  t.equal(bff.asked(), 2, 'one function subscribed twice is two subscriptions: one left, still watching')
})

t.test('Svelte\'s store helpers take it as a store (the contract `$session` relies on)', async (t) => {
  stubBff(t, () => signedIn('Alice'))
  const store = createSessionStore(createMediaBffClient())
  t.equal(get(store), undefined, 'get(): subscribes, reads synchronously, unsubscribes')
  const name = derived(store, (session) => session?.authenticated === true ? session.user.name : null)
  const names: Array<string | null> = []
  const stop = name.subscribe((value) => { names.push(value) })
  t.teardown(stop)
  await settle()
  t.same(names, [null, 'Alice'])
  t.equal(get(name), 'Alice')
})
