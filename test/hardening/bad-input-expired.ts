// Rows that need time to pass: a session idle past SESSION_IDLE_TIMEOUT=1 and a sign-in older
// than LOGIN_TIMEOUT=1. They run on a stack of their own with those settings.
import { setTimeout as sleep } from 'node:timers/promises'
import { onServer } from '../helpers/sign-in.js'
import type { BadInputStack } from './bad-input-stack.js'
import type { BadInputCase } from './bad-input-case.js'
import type { Browser } from '../helpers/http-client.js'

const IDLE_MS = 2100
/** A browser whose session was live a moment ago and is now past its idle timeout. */
async function idleSession (s: BadInputStack): Promise<{ browser: Browser, ulid: string }> {
  const browser = await s.signedIn('alice')
  const registered = await browser.post('/uploads/register', { folder_id: 0 })
  if (registered.status !== 200) throw new Error(`register answered ${registered.status}`)
  await sleep(IDLE_MS)
  return { browser, ulid: registered.json().ulid }
}

export const expiredCases: BadInputCase[] = [
  { route: '/auth/session', name: 'a session past its idle timeout', send: async (s) => await (await idleSession(s)).browser.get('/auth/session'), expect: { status: 200, body: { authenticated: false, login_url: '/auth/login' } } },
  { route: '/uploads/register', name: 'a session past its idle timeout', send: async (s) => await (await idleSession(s)).browser.post('/uploads/register', { folder_id: 0 }), expect: { status: 401, error: 'login_required' } },
  {
    route: '/uploads/:ulid/finish',
    name: 'its own ulid, from a session past its idle timeout',
    send: async (s) => {
      const { browser, ulid } = await idleSession(s)
      return await browser.post(`/uploads/${ulid}/finish`)
    },
    expect: { status: 401, error: 'login_required' }
  },
  { route: '/auth/logout', name: 'a session past its idle timeout', send: async (s) => await (await idleSession(s)).browser.post('/auth/logout'), expect: { status: 200, body: { logged_out: true } } },
  {
    route: '/auth/callback',
    name: 'a state past LOGIN_TIMEOUT',
    send: async (s) => {
      const { browser, callbackUrl } = await s.pendingCallback()
      await sleep(IDLE_MS)
      return await browser.get(onServer(browser, callbackUrl.href))
    },
    expect: { page: 'invalid_state' }
  }
]
