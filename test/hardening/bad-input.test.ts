// Hardening: malformed, hostile and out-of-range input on every route. Each row of the table
// states its documented answer (docs/reference/http-api.md); after every row /healthz must answer
// and a signed-in session must still work, and no secret may reach the logs.
import t, { type Test } from 'tap'
import { contractProblems, describeExpectation } from './contract.js'
import { ROUTES, type BadInputCase, type Route } from './bad-input-case.js'
import { startBadInputStack, type BadInputStack } from './bad-input-stack.js'
import { finishCases, registerCases } from './bad-input-uploads.js'
import { callbackCases, loginCases, logoutCases, sessionCases } from './bad-input-auth.js'
import { operationsCases, unknownCases } from './bad-input-other.js'
import { expiredCases } from './bad-input-expired.js'

const tried = new Map<Route, number>(ROUTES.map((route) => [route, 0]))

async function runTable (t: Test, stack: BadInputStack, cases: BadInputCase[]): Promise<void> {
  for (const row of cases) {
    await t.test(`${row.route}: ${row.name} → ${describeExpectation(row.expect)}`, async (t) => {
      tried.set(row.route, (tried.get(row.route) ?? 0) + 1)
      let problems: string[]
      try {
        problems = contractProblems(await withinSeconds(6, row.send(stack)), row.expect)
      } catch (error) {
        problems = [`no answer: ${(error as Error).message}`]
      }
      t.same(problems, [], 'the documented answer')
      stack.noteCookies()
      const serving = await stack.serving()
      t.same(serving, [], 'still serving: /healthz answers and a signed-in session works')
      // A crash must not hide the rows after it: they run against a fresh process.
      if (serving.length > 0) await stack.recover()
    })
  }
}

// A crashed replica leaves the request hanging until its 20 s grace period ends: give up sooner.
async function withinSeconds<T> (seconds: number, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${seconds} s`)), seconds * 1000) })
  try {
    return await Promise.race([work, late])
  } finally {
    clearTimeout(timer)
  }
}

async function searchLogs (t: Test, stack: BadInputStack): Promise<void> {
  await stack.ledger.addEmulator(stack.emulator)
  const output = stack.output()
  t.ok(output.length > 0, 'media-bff printed logs')
  t.same(stack.ledger.leaksIn(output), [], `none of ${stack.ledger.size} secrets in ${output.split('\n').length} log lines`)
  t.comment(`secrets searched for: ${JSON.stringify(stack.ledger.kinds())}`)
}

t.test('bad input on every route', async (t) => {
  const stack = await startBadInputStack()
  t.teardown(stack.close)
  await runTable(t, stack, [
    ...loginCases, ...callbackCases, ...sessionCases, ...logoutCases,
    ...registerCases, ...finishCases, ...operationsCases, ...unknownCases
  ])
  await t.test('no secret in the logs', async (t) => { await searchLogs(t, stack) })
})

t.test('expired sessions and sign-ins', async (t) => {
  const stack = await startBadInputStack({ SESSION_IDLE_TIMEOUT: '1', LOGIN_TIMEOUT: '1' }, 'fresh')
  t.teardown(stack.close)
  await runTable(t, stack, expiredCases)
  await t.test('no secret in the logs', async (t) => { await searchLogs(t, stack) })
})

t.teardown(() => {
  const total = [...tried.values()].reduce((sum, n) => sum + n, 0)
  t.comment(`cases tried per route (${total} in all):`)
  for (const [route, count] of tried) t.comment(`  ${route}: ${count}`)
})
