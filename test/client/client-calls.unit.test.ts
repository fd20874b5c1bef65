// The browser module's calls as a page relies on them: every call takes an abort signal and a
// deadline, Retry-After is honoured once on a short wait for reads (never for writes), and
// follow() turns login_required and insufficient_scope into the right navigation, back to the
// page's place. Against a stand-in fetch; the same module runs in Chromium in test/browser/.
import t, { type Test } from 'tap'
import { createMediaBffClient, MediaBffError } from '../../public/client/media-bff-client.js'

type Answer = (url: string, init: RequestInit) => Promise<Response>

/** Replaces fetch for one test; resolves as `answer` says, and rejects as fetch does when aborted. */
function stubFetch (t: Test, answer: Answer): Array<{ url: string, method: string }> {
  const sent: Array<{ url: string, method: string }> = []
  const original = globalThis.fetch
  globalThis.fetch = async (input: string | URL | Request, init: RequestInit = {}) => {
    sent.push({ url: String(input), method: init.method ?? 'GET' })
    const signal = init.signal
    if (signal?.aborted === true) throw new DOMException('aborted', 'AbortError')
    return await new Promise<Response>((resolve, reject) => {
      signal?.addEventListener('abort', () => { reject(new DOMException('aborted', 'AbortError')) }, { once: true })
      answer(String(input), init).then(resolve, reject)
    })
  }
  t.teardown(() => { globalThis.fetch = original })
  return sent
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })
const never = async (): Promise<Response> => await new Promise<Response>(() => {})
const caught = async (promise: Promise<unknown>): Promise<MediaBffError> => await promise.then(() => { throw new Error('did not fail') }, (error: unknown) => error as MediaBffError)

t.test('every call can be cancelled: before it is sent, and while it waits', async (t) => {
  const sent = stubFetch(t, never)
  const bff = createMediaBffClient()
  const already = new AbortController()
  already.abort()
  const before = await caught(bff.folders.contents(0, { signal: already.signal }))
  t.equal(before.code, 'aborted')
  t.equal(sent.length, 0, 'nothing was sent')
  const during = new AbortController()
  const pending = caught(bff.registerUpload({ folderId: 0 }, { signal: during.signal }))
  during.abort()
  const error = await pending
  t.type(error, MediaBffError)
  t.equal(error.code, 'aborted')
  t.equal(error.status, 0)
})

t.test('every call has a deadline: the client\'s, or its own', async (t) => {
  stubFetch(t, never)
  const bff = createMediaBffClient({ timeoutMs: 60 })
  const started = Date.now()
  const error = await caught(bff.getSession())
  t.equal(error.code, 'timeout')
  t.ok(Date.now() - started < 2000, 'given up at about the deadline')
  t.equal((await caught(bff.files.get(3, { timeoutMs: 30 }))).code, 'timeout', 'a call may set its own')
  t.equal((await caught(bff.files.shareLink([3], { download: true, timeoutMs: 30 }))).code, 'timeout', 'also next to its own options')
})

t.test('Retry-After: a read waits once when the wait is short; a write never repeats itself', async (t) => {
  let calls = 0
  const sent = stubFetch(t, async () => ++calls === 1 ? json(503, { error: 'unavailable', message: 'Try again shortly.' }, { 'retry-after': '1' }) : json(200, { authenticated: false, login_url: '/auth/login' }))
  const bff = createMediaBffClient()
  const started = Date.now()
  t.same(await bff.getSession(), { authenticated: false, login_url: '/auth/login' })
  t.ok(Date.now() - started >= 950, 'after the wait the service asked for')
  t.equal(sent.length, 2)

  calls = 0
  sent.length = 0
  const write = await caught(bff.folders.create(0, 'New', {}))
  t.equal(sent.length, 1, 'the write went once')
  t.equal(write.code, 'unavailable')
  t.equal(write.retryAfter, 1, 'and says how long to wait')
})

t.test('Retry-After: a long wait, or one past the deadline, is the page\'s to decide', async (t) => {
  const sent = stubFetch(t, async () => json(429, { error: 'rate_limited', message: 'Too many requests.' }, { 'retry-after': '30' }))
  const bff = createMediaBffClient()
  const error = await caught(bff.folders.get(1))
  t.equal(error.code, 'rate_limited')
  t.equal(error.retryAfter, 30)
  t.equal(sent.length, 1, 'not waited for')
  const short = createMediaBffClient({ timeoutMs: 500 })
  sent.length = 0
  stubFetch(t, async () => json(503, { error: 'unavailable', message: 'Later.' }, { 'retry-after': '2' }))
  t.equal((await caught(short.folders.get(1))).retryAfter, 2, 'the wait would pass the deadline')
})

t.test('follow(): sign in again, or grant the missing scope, coming back to the page\'s place', async (t) => {
  const went: string[] = []
  const bff = createMediaBffClient({ navigate: (url) => { went.push(url) } })
  const place = '/library?folder=12#file-7'
  const login = new MediaBffError(401, 'login_required', 'Please sign in.', { login_url: '/auth/login' })
  t.equal(bff.follow(login, { returnTo: place }), true)
  t.equal(went.pop(), `/auth/login?return_to=${encodeURIComponent(place)}`)
  const reauth = new MediaBffError(401, 'reauth_required', 'Sign in again.', { login_url: '/auth/login' })
  t.equal(bff.follow(reauth, { returnTo: place }), true)
  t.equal(went.pop(), `/auth/login?return_to=${encodeURIComponent(place)}`, 'reauth_required alike')
  const scope = new MediaBffError(403, 'insufficient_scope', 'This needs upload.', { required_scopes: ['upload'], reauthorize_url: '/auth/login?scope=basic+upload&return_to=%2Fsomewhere' })
  t.equal(bff.follow(scope, { returnTo: place }), true)
  const consent = new URL(went.pop() ?? '', 'https://page.invalid')
  t.equal(consent.pathname, '/auth/login')
  t.equal(consent.searchParams.get('scope'), 'basic upload', 'the scopes media-bff named')
  t.equal(consent.searchParams.get('return_to'), place, 'back to the page\'s place, not the Referer media-bff saw')
  const recent = new MediaBffError(403, 'reauth_required', 'This needs a recent sign-in.', { reason: 'recent_sign_in', max_age: 900, login_url: '/auth/login?prompt=login&return_to=%2Fsomewhere' })
  t.equal(recent.needsSignIn, false, 'a risky act\'s recent sign-in: the session itself is fine')
  t.equal(recent.needsRecentSignIn, true)
  t.equal(bff.follow(recent, { returnTo: place }), true)
  const fresh = new URL(went.pop() ?? '', 'https://page.invalid')
  t.equal(fresh.searchParams.get('prompt'), 'login', 'a fresh login, as media-bff asked')
  t.equal(fresh.searchParams.get('return_to'), place, 'back to the page\'s place')
  t.equal(bff.follow(new MediaBffError(403, 'scope_not_granted', 'No right.', { required_scopes: ['upload'] }), { returnTo: place }), false, 'no right: no loop')
  t.equal(bff.follow(new Error('other')), false)
  t.same(went, [], 'nothing else navigated')
  const elsewhere = createMediaBffClient({ baseUrl: 'https://media.example.org/', navigate: (url) => { went.push(url) } })
  elsewhere.signIn({ returnTo: '/x', scope: 'share' })
  t.equal(went.pop(), 'https://media.example.org/auth/login?return_to=%2Fx&scope=share', 'media-bff on another origin')
})
