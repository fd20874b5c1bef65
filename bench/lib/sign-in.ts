// Sessions made through the real code path: /auth/login, the emulator's consent form, the
// callback (code exchange, user/info, grant, session). Many at once with a bounded pool.
import { Browser } from '../../test/helpers/http-client.js'
import { signIn } from '../../test/helpers/sign-in.js'
import { defaultUserInputs, type FixtureUserInput } from '../../emulator/fixture-users.js'

/** Signs alice in and returns the Cookie header a browser would then send. */
export async function signedInCookie (bffUrl: string): Promise<string> {
  const browser = new Browser(bffUrl)
  const { callback } = await signIn(browser, { user: 'alice' })
  if (callback.status !== 302) throw new Error(`sign-in ended with ${callback.status}: ${callback.text}`)
  const session = await browser.get('/auth/session')
  if (session.json().authenticated !== true) throw new Error(`signed in, but /auth/session says ${session.text}`)
  const cookie = browser.cookieHeader()
  if (cookie === undefined) throw new Error('signed in without a session cookie')
  return cookie
}

/**
 * The bench's people (the emulator knows them: benchUsers): sessions are spread over them, as a
 * person may hold at most 50 sessions (MAX_SESSIONS_PER_PERSON) and a sign-in beyond ends their
 * oldest; 400 people take 10,000 sessions at 25 each.
 */
export const BENCH_PEOPLE = Array.from({ length: 400 }, (_, i) => `bench-${i + 1}`)

/** The emulator's users for the bench: its default ones (alice, bob) and BENCH_PEOPLE. */
export function benchUsers (): FixtureUserInput[] {
  return [...defaultUserInputs, ...BENCH_PEOPLE.map((name) => ({ name, scopes: ['basic', 'user.info', 'upload'] }))]
}

let signedInSoFar = 0

/** Signs in `count` sessions, `concurrency` at a time, round the bench's people; resolves with the seconds it took. */
export async function signInMany (bffUrl: string, count: number, concurrency: number): Promise<number> {
  const started = performance.now()
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < count) {
      next++
      const user = BENCH_PEOPLE[signedInSoFar++ % BENCH_PEOPLE.length] ?? 'alice'
      const { callback } = await signIn(new Browser(bffUrl), { user })
      if (callback.status !== 302) throw new Error(`sign-in ended with ${callback.status}`)
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker))
  return (performance.now() - started) / 1000
}
