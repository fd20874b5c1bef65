// The short soak for CI: 200 sessions, two replicas over one Redis, ~12 s of mixed traffic with
// 3 s access tokens (several refreshes per grant). `npm run soak` runs the long one.
import t from 'tap'
import { runSoak } from './soak.js'
import { soakMarkdown, soakProblems } from './soak-report.js'

t.test('200 sessions, 2 replicas, one Redis, tokens expiring throughout', async (t) => {
  const report = await runSoak({ durationMs: 12_000, sessions: 200, replicas: 2, accessTokenTtlS: 3, progress: (line) => { t.comment(line) } })
  for (const line of soakMarkdown(report).split('\n')) t.comment(line)
  t.same(soakProblems(report), [], 'the soak held')
})
