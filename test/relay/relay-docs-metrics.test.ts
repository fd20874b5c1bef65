// The relay is visible to operators: /docs lists every allowlisted operation with its scope, and
// /metrics counts relayed calls by operation and outcome.
import t from 'tap'
import { startStack } from '../helpers/bff.js'
import { signIn } from '../helpers/sign-in.js'
import { RELAY_OPERATIONS } from '../../src/relay/operations.js'

t.test('/docs lists every relayed operation with its scope, and nothing else under /api/', async (t) => {
  const stack = await startStack()
  t.teardown(stack.close)
  const docs = (await stack.bff.browser().get('/docs')).json() as { paths: Record<string, Record<string, { tags: string[], description: string }>> }
  const relayed = Object.entries(docs.paths).filter(([path]) => path.startsWith('/api/'))
  const listed = relayed.flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`)).sort()
  const expected = RELAY_OPERATIONS.map((op) => `${op.method} /api/${op.path.replace(/:(\w+)/g, '{$1}')}`).sort()
  t.same(listed, expected)
  for (const op of RELAY_OPERATIONS) {
    const entry = docs.paths[`/api/${op.path.replace(/:(\w+)/g, '{$1}')}`]?.[op.method.toLowerCase()]
    t.match(entry?.description, `\`${op.scope}\``, `${op.name} names its scope`)
    t.same(entry?.tags, ['api'])
  }
})

t.test('/metrics counts relayed calls by operation and outcome', async (t) => {
  const stack = await startStack({ env: { OAUTH_SCOPES: 'basic user.info' } })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  await signIn(browser)
  await browser.get('/api/folders/0/contents')
  const etag = String((await browser.get('/api/folders/0/contents')).headers.etag)
  await browser.get('/api/folders/0/contents', { 'if-none-match': etag })
  await browser.get('/api/files/999999')
  await browser.fetch('POST', '/api/folders/0', { headers: { 'x-csrf': '1' }, json: { name: 'x' } })
  stack.emulator.injectFault({ endpoint: 'library', failStatus: 503, failCount: 1 })
  await browser.get('/api/folders/0')
  const metrics = (await browser.get('/metrics')).text
  const count = (operation: string, outcome: string): number => Number(new RegExp(`^media_bff_relayed_calls_total\\{operation="${operation}",outcome="${outcome}"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0)
  t.equal(count('folder_contents', 'ok'), 2)
  t.equal(count('folder_contents', 'not_modified'), 1)
  t.equal(count('file', 'refused'), 1, 'the service\'s 404')
  t.equal(count('folder_create', 'refused'), 1, 'our own 403: insufficient_scope')
  t.equal(count('folder', 'upstream_error'), 1)
  t.match(metrics, /media_bff_upstream_request_duration_seconds_count\{endpoint="folder_contents",status="200"\} 2/)
})
