// The soak's users: sessions signed in through a bounded pool, then each one calling GET
// /auth/session, POST /uploads/register and POST /uploads/:ulid/finish (on uploads it registered)
// on a random replica per request, sometimes two calls at once, as a page does.
import { setTimeout as sleep } from 'node:timers/promises'
import { Browser } from '../helpers/http-client.js'
import { consent } from '../helpers/sign-in.js'
import type { SessionTimeline } from './refresh-bounds.js'
import type { SecretLedger } from './secrets.js'

export type SoakRoute = 'session' | 'register' | 'finish'

export interface SoakSession {
  browser: Browser
  timeline: SessionTimeline
  /** Uploads registered and not finished yet. */
  pending: string[]
}

export interface RequestRecord {
  route: SoakRoute
  replica: number
  status: number
  ms: number
  /** What was wrong with a failed call (first 200 characters), for the report. */
  problem?: string
}

const MAX_PENDING = 8
const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)]!
/** Runs `work` for every item with at most `size` at once. */
export async function inPool<T, R> (items: T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length)
  let next = 0
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++
      results[index] = await work(items[index]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, lane))
  return results
}

/** Signs alice in: /auth/login on one replica, the consent page, the callback on another. */
export async function signInSession (replicaUrls: string[], ledger: SecretLedger, user: string): Promise<SoakSession> {
  const browser = new Browser(pick(replicaUrls))
  const login = await browser.get(`${pick(replicaUrls)}/auth/login`)
  if (login.status !== 302 || login.location === undefined) throw new Error(`login answered ${login.status}: ${login.text}`)
  const callbackUrl = new URL(await consent(browser, login.location, user))
  ledger.addCallback(callbackUrl)
  const sent = Date.now()
  const callback = await browser.get(`${pick(replicaUrls)}${callbackUrl.pathname}${callbackUrl.search}`)
  const answered = Date.now()
  if (callback.status !== 302) throw new Error(`callback answered ${callback.status}: ${callback.text}`)
  ledger.addCookies(browser)
  return { browser, timeline: { signIn: { sent, answered }, upstream: [], attempted: [] }, pending: [] }
}

async function oneCall (session: SoakSession, replicaUrls: string[], records: RequestRecord[]): Promise<void> {
  const replica = Math.floor(Math.random() * replicaUrls.length)
  const base = replicaUrls[replica]!
  const roll = Math.random()
  const ulid = roll >= 0.75 ? session.pending.shift() : undefined
  const route: SoakRoute = roll < 0.4 ? 'session' : ulid === undefined ? 'register' : 'finish'
  const sent = Date.now()
  let status = 0
  let problem: string | undefined
  try {
    const answer = route === 'session'
      ? await session.browser.get(`${base}/auth/session`)
      : route === 'register'
        ? await session.browser.post(`${base}/uploads/register`, { folder_id: 0 })
        : await session.browser.post(`${base}/uploads/${ulid ?? ''}/finish`)
    status = answer.status
    if (status !== 200) problem = answer.text.slice(0, 200)
    else if (route === 'session' && answer.json().authenticated !== true) {
      status = -1
      problem = 'signed out'
    } else if (route === 'register') {
      session.pending.push(answer.json().ulid)
      if (session.pending.length > MAX_PENDING) session.pending.shift()
    }
  } catch (error) {
    problem = (error as Error).message.slice(0, 200)
  }
  const answered = Date.now()
  if (route !== 'session') {
    session.timeline.attempted.push({ sent, answered })
    if (status === 200) session.timeline.upstream.push({ sent, answered })
  }
  records.push({ route, replica, status, ms: answered - sent, ...(problem === undefined ? {} : { problem }) })
}

/** Each session calls until `deadline`, pausing 0 to 2 × thinkMs between steps. */
export async function driveTraffic (sessions: SoakSession[], replicaUrls: string[], deadline: number, thinkMs: number): Promise<RequestRecord[]> {
  const records: RequestRecord[] = []
  await Promise.all(sessions.map(async (session) => {
    // Spread the start so the sessions do not call in lock-step.
    await sleep(Math.random() * thinkMs * 2)
    while (Date.now() < deadline) {
      // One step in five sends two calls at once, often to both replicas: the refresh of an
      // expired token is then contended across processes.
      const parallel = Math.random() < 0.2 ? 2 : 1
      await Promise.all(Array.from({ length: parallel }, async () => { await oneCall(session, replicaUrls, records) }))
      await sleep(Math.random() * thinkMs * 2)
    }
  }))
  return records
}
