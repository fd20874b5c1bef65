// Two people on one browser, one after the other: alice signs in, opens her home folder, signs
// out; bob signs in in the same browser (same HTTP cache) and opens his. The home folder is one
// URL for both (/api/folders/0/contents), and the service's validators are its library version,
// the same for both here (each library changed once), so a cached answer revalidated with the
// wrong person's validator would show bob alice's folders. Each must see only their own.
import t from 'tap'
import { defaultUserInputs } from '../../emulator/fixture-users.js'
import { folderNames, signInAs, waitForFolder, waitForSession } from './demo-steps.js'
import { openDemo } from './demo-run.js'

t.test('alice, then bob, on one browser: each sees only their own home folder', async (t) => {
  // bob may create folders too, so the test can give each library one change of its own.
  const users = defaultUserInputs.map((user) => user.name === 'bob' ? { ...user, scopes: ['basic', 'user.info', 'manage'] } : user)
  const { stack, page, problems } = await openDemo(t, {}, { users })
  const { emulator, bff } = stack
  for (const [user, name] of [['alice', 'Alice only'], ['bob', 'Bob only']] as const) {
    const token = emulator.users.find((candidate) => candidate.name === user)?.privateToken ?? ''
    const created = await fetch(`${emulator.baseUrl}/api/folders/0`, { method: 'POST', headers: { authorization: `Private-Token ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name }) })
    t.equal(created.status, 201, `${user}'s library changed once`)
  }

  await page.goto(`${bff.url}/`)
  await waitForSession(page, 'signed-out')
  await signInAs(page, bff.url, emulator.baseUrl, 'alice')
  await waitForFolder(page, 0)
  t.ok((await folderNames(page)).includes('Alice only'), 'alice sees her folder')
  await page.click('#sign-out')
  await waitForSession(page, 'signed-out')

  await signInAs(page, bff.url, emulator.baseUrl, 'bob')
  await waitForFolder(page, 0)
  const bobSees = await folderNames(page)
  t.ok(bobSees.includes('Bob only'), 'bob sees his folder')
  t.notOk(bobSees.includes('Alice only'), 'and none of alice\'s')
  t.same(problems, [], 'no script errors or CSP violations')
})
