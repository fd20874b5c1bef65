// A loop of signed-in calls (GET /auth/session, POST /uploads/register, a relayed GET
// /api/folders/0/contents) that records every
// answer with the phase it was sent in, and everything wrong with it: a status other than 200 and
// 503, a 503 off the contract, a cleared session cookie, a 200 that says "signed out".
import { setTimeout as sleep } from 'node:timers/promises'
import type { Browser, HttpResponse } from '../helpers/http-client.js'
import { clearsCookie, contractProblems } from './contract.js'

export interface TrafficOutcome {
  phase: string
  route: 'session' | 'register' | 'relay'
  status: number
  problems: string[]
}

export interface Traffic {
  outcomes: TrafficOutcome[]
  setPhase: (phase: string) => void
  stop: () => Promise<void>
}

const ROUTES = ['session', 'register', 'relay'] as const

export function startTraffic (browsers: Browser[], cookieName: string, pauseMs = 25): Traffic {
  const outcomes: TrafficOutcome[] = []
  let phase = 'before'
  const control = { running: true }

  const judge = (route: TrafficOutcome['route'], answer: HttpResponse): string[] => {
    const problems: string[] = []
    if (clearsCookie(answer, cookieName)) problems.push('the session cookie was cleared')
    if (answer.status === 503) return [...problems, ...contractProblems(answer, { status: 503, error: 'unavailable' })]
    if (answer.status !== 200) return [...problems, `${answer.status} ${answer.text.slice(0, 160)}`]
    if (route === 'session' && answer.json().authenticated !== true) problems.push('the session was lost: /auth/session says signed out')
    return problems
  }

  const worker = async (browser: Browser, offset: number): Promise<void> => {
    let turn = offset
    while (control.running) {
      const route = ROUTES[turn++ % ROUTES.length] ?? 'session'
      const sentIn = phase
      try {
        const answer = route === 'session'
          ? await browser.get('/auth/session')
          : route === 'register' ? await browser.post('/uploads/register', { folder_id: 0 }) : await browser.get('/api/folders/0/contents')
        outcomes.push({ phase: sentIn, route, status: answer.status, problems: judge(route, answer) })
      } catch (error) {
        outcomes.push({ phase: sentIn, route, status: 0, problems: [`no answer: ${(error as Error).message}`] })
      }
      await sleep(pauseMs)
    }
  }

  const workers = browsers.map(async (browser, i) => { await worker(browser, i) })
  return {
    outcomes,
    setPhase: (next) => { phase = next },
    stop: async () => {
      control.running = false
      await Promise.all(workers)
    }
  }
}

/** "before: 200×40 503×0 | outage: ..." for the test output. */
export function summarise (outcomes: TrafficOutcome[]): string {
  const byPhase = new Map<string, Map<number, number>>()
  for (const { phase, status } of outcomes) {
    const counts = byPhase.get(phase) ?? new Map<number, number>()
    counts.set(status, (counts.get(status) ?? 0) + 1)
    byPhase.set(phase, counts)
  }
  return [...byPhase].map(([phase, counts]) => `${phase}: ${[...counts].map(([status, n]) => `${status}×${n}`).join(' ')}`).join(' | ')
}
