// The relay's hostile-service stack, shared by relay-hostile.test.ts and relay-refusals.test.ts:
// a hostile media service (test/hardening/hostile-media-service.ts) and a media-bff in front of
// it, reset after every test.
import type { Test } from 'tap'
import { startBff } from '../helpers/bff.js'
import { signInWithoutConsent } from '../helpers/sign-in.js'
import { asUpstream, startHostileService } from '../hardening/hostile-media-service.js'

export async function startHostileRelay (t: Test) {
  const service = await startHostileService()
  t.teardown(service.close)
  const bff = await startBff(asUpstream(service), {
    OAUTH_SCOPES: 'basic user.info upload',
    ALLOWED_ORIGINS: 'https://www.example.org',
    UPSTREAM_TIMEOUT_MS: '1000'
  })
  t.teardown(bff.close)
  t.afterEach(async () => { service.reset() })

  /** A browser signed in through the hostile service's authorize and token endpoints. */
  const signedIn = async (): Promise<ReturnType<typeof bff.browser>> => {
    const browser = bff.browser()
    t.equal(await signInWithoutConsent(browser), '/')
    return browser
  }

  /** The last folder, file or oEmbed call the service received. */
  const lastLibraryCall = (): (typeof service.received)[number] => {
    const call = service.received.filter((request) => /^\/api\/(folders|files|oembed)/.test(request.path)).at(-1)
    if (call === undefined) throw new Error('the service received no library call')
    return call
  }
  return { service, bff, signedIn, lastLibraryCall }
}
