// The browser module's sign-in helpers: the tenant a sign-in names (the client's default, or the
// call's own; checked before anything navigates), and readSignInError, which turns the
// `?auth_error=<code>` media-bff's callback sends the browser back with into a SignInError the
// page can switch on and show. Taking it out of the address bar is shown in Chromium
// (test/browser/framework-pages.test.ts).
import t from 'tap'
import { createMediaBffClient, MediaBffError, readSignInError, SignInError, type SignInErrorCode } from '../../public/client/media-bff-client.js'

t.test('a sign-in names the tenant: the call\'s, else the client\'s, else none (media-bff\'s choice)', async (t) => {
  const went: string[] = []
  const navigate = (url: string): void => { went.push(url) }
  const tenantOf = (url: string | undefined): string | null => new URL(url ?? '', 'https://page.example').searchParams.get('tenant')
  const plain = createMediaBffClient({ navigate })
  t.equal(tenantOf(plain.loginUrl({ returnTo: '/' })), null, 'no tenant: media-bff signs in with the session\'s or its default')
  t.equal(plain.loginUrl({ returnTo: '/', tenant: 'north' }), '/auth/login?return_to=%2F&tenant=north')
  const north = createMediaBffClient({ tenant: 'north', navigate })
  north.signIn({ returnTo: '/x', scope: 'upload' })
  t.equal(went.pop(), '/auth/login?return_to=%2Fx&scope=upload&tenant=north')
  t.equal(tenantOf(north.loginUrl({ tenant: 'south-2' })), 'south-2', 'the call\'s own wins')
  t.equal(north.follow(new MediaBffError(401, 'login_required', 'Sign in.', { login_url: '/auth/login' }), { returnTo: '/y' }), true)
  t.equal(tenantOf(went.pop()), 'north', 'signing in again after login_required: the same tenant')

  for (const tenant of ['', 'a b', '../x', 'x&scope=admin', '-dash-first', 'é', 'x'.repeat(64)]) {
    t.throws(() => north.signIn({ tenant }), { code: 'invalid_request', status: 0, details: { field: 'tenant' } }, `${JSON.stringify(tenant)} refused`)
    t.throws(() => createMediaBffClient({ tenant }), { code: 'invalid_request' }, `${JSON.stringify(tenant)} refused as the default`)
  }
  t.same(went, [], 'nothing refused navigated')
})

t.test('readSignInError: a typed error for each code media-bff sends back; nothing without auth_error', async (t) => {
  const codes: SignInErrorCode[] = ['access_denied', 'invalid_scope', 'unauthorized_client', 'unsupported_response_type', 'server_error',
    'temporarily_unavailable', 'invalid_request', 'issuer_mismatch', 'token_exchange_failed', 'unavailable']
  for (const code of codes) {
    const error = readSignInError(`https://site.example/library?folder=3&auth_error=${code}#top`)
    t.type(error, SignInError, code)
    t.type(error, MediaBffError, 'a MediaBffError too: a page\'s one catch takes it')
    t.match(error, { name: 'SignInError', code, status: 0, needsSignIn: false })
    t.ok((error?.message.length ?? 0) > 20, `a sentence for people: ${error?.message ?? ''}`)
  }
  t.match(readSignInError('/back?auth_error=access_denied'), { code: 'access_denied', message: /^Sign-in was cancelled/ }, 'a path will do')
  t.match(readSignInError(new URL('https://site.example/?auth_error=unavailable')), { code: 'unavailable' }, 'a URL too')
  t.equal(readSignInError('https://site.example/?folder=3'), undefined)
  t.equal(readSignInError('https://site.example/#auth_error=access_denied'), undefined, 'only the query counts')
  t.equal(readSignInError(), undefined, 'no address and no page (Node): nothing')
})

t.test('readSignInError: any other code is `unknown`, and only a plain code is kept', async (t) => {
  t.match(readSignInError('/?auth_error=consent_required'), { code: 'unknown', details: { reported: 'consent_required' } }, 'an authorization server\'s code not in the list')
  for (const odd of ['<script>alert(1)</script>', 'A'.repeat(65), 'toString', '__proto__', '', 'access_denied ']) {
    const error = readSignInError(`/?auth_error=${encodeURIComponent(odd)}`)
    t.equal(error?.code, 'unknown', JSON.stringify(odd))
    t.notOk(JSON.stringify(error?.details ?? {}).includes('<'), 'no markup kept')
    t.equal(error?.message, 'Signing in did not work. Please try again.')
  }
})
