// In memory, upload registrations live in a bounded store of their own: however many uploads are
// registered, none of them takes the place of a session or a grant.
import t from 'tap'
import { startStack } from '../helpers/bff.js'
import { signIn } from '../helpers/sign-in.js'

t.test('registrations do not go into the store that holds sessions and grants', async (t) => {
  const stack = await startStack({ env: { OAUTH_SCOPES: 'basic user.info upload' } })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  await signIn(browser)
  const size = (store: unknown): number => (store as { size: number }).size
  const { people: kv, uploads: uploadKv } = stack.bff.app.stores
  t.not(uploadKv, kv, 'a store of their own')
  const sessionsBefore = size(kv)
  for (let i = 0; i < 5; i++) t.equal((await browser.post('/uploads/register', { folder_id: 0 })).status, 200)
  t.equal(size(kv), sessionsBefore, 'the session store holds no registration')
  t.equal(size(uploadKv), 5, 'each registration remembered')
  const record = (await browser.post('/uploads/register', { folder_id: 0 })).json()
  t.equal((await browser.post(record.finish_url)).status, 200, 'and finishing finds it')
})
