// src/sessions/session-endings.ts: each ending makes its person's copies out of date, is announced
// to the sessions' open pages with the reason they know, and is counted by why, in one call.
import t from 'tap'
import { ENDINGS, sessionEndings, type Ending } from '../../src/sessions/session-endings.js'
import { SESSION_END_REASONS } from '../../src/events/live-message.js'

t.test('every ending is announced with a reason pages know, and counted by why', async (t) => {
  const announced: Array<[readonly string[], string]> = []
  const counted: Array<[Ending, number]> = []
  const changed: string[] = []
  const ended = sessionEndings({
    changed: async (budgetKey) => { changed.push(budgetKey) },
    announce: (handles, reason) => announced.push([handles, reason]),
    count: (ending, live) => counted.push([ending, live])
  })
  for (const ending of Object.keys(ENDINGS) as Ending[]) {
    announced.length = 0
    counted.length = 0
    changed.length = 0
    await ended(ending, { live: 2, handles: ['h1', 'h2'], whose: ['user:t:u', undefined, 'user:t:u'] })
    t.same(changed, ['user:t:u'], `${ending}: the person's copies made out of date, once`)
    t.same(announced, [[['h1', 'h2'], ENDINGS[ending]]], `${ending}: announced once`)
    t.ok((SESSION_END_REASONS as readonly string[]).includes(announced[0]?.[1] ?? ''), `${ending}: as ${ENDINGS[ending]}`)
    t.same(counted, [[ending, 2]], `${ending}: counted once, by its own name`)
  }
})

t.test('nothing ended changes nobody; a store that cannot take the news fails the ending before anyone is told', async (t) => {
  const announced: string[][] = []
  const ended = sessionEndings({
    changed: async () => { throw new Error('store down') },
    announce: (handles) => announced.push([...handles]),
    count: () => {}
  })
  await ended('operator', { live: 0, handles: [], whose: ['user:t:u'] })
  await t.rejects(ended('operator', { live: 1, handles: ['h1'], whose: ['user:t:u'] }), /store down/)
  t.same(announced, [[]], 'only the ending that made no change was announced')
})
