// src/sessions/session-endings.ts: each ending is announced to the sessions' open pages with the
// reason they know, and counted by why, in one call.
import t from 'tap'
import { ENDINGS, sessionEndings, type Ending } from '../../src/sessions/session-endings.js'
import { SESSION_END_REASONS } from '../../src/events/live-message.js'

t.test('every ending is announced with a reason pages know, and counted by why', async (t) => {
  const announced: Array<[readonly string[], string]> = []
  const counted: Array<[Ending, number]> = []
  const ended = sessionEndings({ announce: (handles, reason) => announced.push([handles, reason]), count: (ending, live) => counted.push([ending, live]) })
  for (const ending of Object.keys(ENDINGS) as Ending[]) {
    announced.length = 0
    counted.length = 0
    ended(ending, { live: 2, handles: ['h1', 'h2'] })
    t.same(announced, [[['h1', 'h2'], ENDINGS[ending]]], `${ending}: announced once`)
    t.ok((SESSION_END_REASONS as readonly string[]).includes(announced[0]?.[1] ?? ''), `${ending}: as ${ENDINGS[ending]}`)
    t.same(counted, [[ending, 2]], `${ending}: counted once, by its own name`)
  }
})
