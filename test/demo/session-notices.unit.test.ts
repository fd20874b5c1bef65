// public/demo/session-notices.ts: ENDED_NOTICE_CODES is exactly the codes endedNotice gives, so
// the demo's failures (public/demo/failures.ts) know every notice that already says why a
// session ended.
import t from 'tap'
import { ENDED_NOTICE_CODES, endedNotice } from '../../public/demo/session-notices.js'

t.test('the ended notices\' codes, every reason and where it happened', async (t) => {
  const given = new Set<string>()
  for (const reason of ['signed_out', 'expired', 'ended'] as const) {
    for (const elsewhere of [false, true]) given.add(endedNotice({ reason, elsewhere }, '/auth/login').code)
  }
  t.same([...given].sort(), [...ENDED_NOTICE_CODES].sort())
})
