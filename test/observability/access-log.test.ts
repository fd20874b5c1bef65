// The access log (plugins/access-log.ts): one "request completed" line per answered request, with
// what an operator reads of it and nothing of its query, headers or body; none below info.
import t from 'tap'
import { setImmediate as turn } from 'node:timers/promises'
import { startStack, type TestBff } from '../helpers/bff.js'

interface Line { msg?: string, reqId?: string, level?: number, req?: Record<string, unknown>, res?: Record<string, unknown>, responseTime?: unknown }

const lines = (bff: TestBff): Line[] => bff.logs.map((line) => JSON.parse(line) as Line)

/** The lines of one request once its "request completed" line is written (after the answer). */
async function linesOf (bff: TestBff, reqId: string): Promise<Line[]> {
  for (let turns = 0; turns < 10_000; turns++) {
    const own = lines(bff).filter((line) => line.reqId === reqId)
    if (own.some((line) => line.msg === 'request completed')) return own
    await turn()
  }
  throw new Error(`no "request completed" line for ${reqId}`)
}

t.test('one line per request: id, method, path without its query, address, status, time', async (t) => {
  const stack = await startStack({ env: { LOG_LEVEL: 'info' } })
  t.teardown(stack.close)
  const answers = [
    await stack.bff.browser().get('/auth/session?marker=query-marker-51'),
    await stack.bff.browser().get('/no-such-page?code=code-marker-52'),
    await stack.bff.browser({ 'x-csrf': '1', cookie: 'cookie-marker-53=1' }).post('/uploads/register', { filename: 'a.txt', filesize: 1, filetype: 'text/plain', folder_id: '0' })
  ]
  for (const answer of answers) {
    const reqId = String(answer.headers['x-request-id'])
    const own = await linesOf(stack.bff, reqId)
    t.same(own.map((line) => line.msg), ['request completed'], `${answer.status}: one line, no "incoming request" before it`)
    const [line] = own
    t.equal(line?.level, 30, 'at info')
    t.same(Object.keys(line?.req ?? {}).sort(), ['id', 'ip', 'method', 'path'])
    t.same(line?.res, { statusCode: answer.status })
    t.type(line?.responseTime, 'number')
  }
  t.match(lines(stack.bff).find((line) => line.reqId === String(answers[0]?.headers['x-request-id']))?.req, { method: 'GET', path: '/auth/session', ip: '127.0.0.1' })
  for (const marker of ['query-marker-51', 'code-marker-52', 'cookie-marker-53']) {
    t.notOk(stack.bff.logs.some((line) => line.includes(marker)), `${marker} is in no line`)
  }
})

t.test('below info, no access lines', async (t) => {
  const stack = await startStack({ env: { LOG_LEVEL: 'warn' } })
  t.teardown(stack.close)
  await stack.bff.browser().get('/auth/session')
  await stack.bff.browser().get('/healthz')
  await turn()
  t.same(lines(stack.bff).filter((line) => line.msg === 'request completed'), [])
})
