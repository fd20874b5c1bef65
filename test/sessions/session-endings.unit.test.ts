// src/sessions/session-endings.ts: each ending makes its person's copies out of date, is announced
// to the sessions' open pages with the reason they know, and is counted by why, in one call.
import t from 'tap'
import { ENDINGS, sessionEndings, type Ending } from '../../src/sessions/session-endings.js'
import { SESSION_END_REASONS } from '../../src/contract/live-events.js'

t.test('every ending is announced with a reason pages know, and counted by why', async (t) => {
  const announced: Array<[readonly string[], string]> = []
  const counted: Array<[Ending, number]> = []
  const changed: string[] = []
  const ended = sessionEndings({
    changed: async (budgetKey) => { changed.push(budgetKey) },
    announce: (handles, reason) => announced.push([handles, reason]),
    count: (ending, { live }) => counted.push([ending, live])
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

t.test('nothing ended changes nobody; a part-way ending tells the replicas all the same', async (t) => {
  const changed: string[] = []
  const ended = sessionEndings({ changed: async (budgetKey) => { changed.push(budgetKey) }, announce: () => {}, count: () => {} })
  await ended('operator', { live: 0, handles: [], whose: ['user:t:u'] })
  t.same(changed, [], 'nothing ended: no copy need be read again')
  await ended('operator', { live: 0, handles: [], whose: ['user:t:u'], partly: true })
  t.same(changed, ['user:t:u'], 'an ending that failed part-way may have ended some: the copies are read again')
})

t.test('a store that cannot take the news now fails no ending: it is told and counted, and the epoch is dropped again until every copy would have aged out', async (t) => {
  const announced: string[][] = []
  const counted: Ending[] = []
  let now = 0
  const waiting: Array<{ at: number, run: () => void }> = []
  let attempts = 0
  let storeBackAt = 700
  const ended = sessionEndings({
    changed: async () => {
      attempts++
      if (now < storeBackAt) throw new Error('store down')
    },
    announce: (handles) => announced.push([...handles]),
    count: (ending) => counted.push(ending),
    now: () => now,
    later: (run, ms) => { waiting.push({ at: now + ms, run }) }
  })
  const passTo = async (time: number): Promise<void> => {
    while (true) {
      waiting.sort((a, b) => a.at - b.at)
      const next = waiting[0]
      if (next === undefined || next.at > time) break
      waiting.shift()
      now = next.at
      next.run()
      await new Promise((resolve) => setImmediate(resolve))
    }
    now = time
  }
  await ended('signed_out', { live: 1, handles: ['h1'], whose: ['user:t:u'] })
  t.same(announced, [['h1']], 'the pages are told at once')
  t.same(counted, ['signed_out'], 'and the ending counted')
  await passTo(10_000)
  t.ok(attempts > 1, `the epoch was dropped again (${attempts} attempts)`)
  t.equal(waiting.length, 0, 'and no more once the store took it')
  const tookAt = attempts

  attempts = 0
  storeBackAt = Number.POSITIVE_INFINITY
  const since = now
  await ended('signed_out', { live: 1, handles: ['h2'], whose: ['user:t:u'] })
  await passTo(since + 60_000)
  t.equal(waiting.length, 0, `never taken: tried ${attempts} times, and given up once every copy would have been read again anyway (MAX_AGE_MS)`)
  t.ok(attempts > 2 && attempts < tookAt + 20)
})
