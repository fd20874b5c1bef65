import t from 'tap'
import { randomBytes } from 'node:crypto'
import { createBoundedMemo } from '../../src/bounded-memo.js'
import { createTokenCipher, parseTokenKeys } from '../../src/store/token-cipher.js'

t.test('the memo never holds more than its bound and drops the oldest first', async (t) => {
  const memo = createBoundedMemo<number>(3)
  for (let i = 0; i < 10; i++) memo.set(`k${i}`, i)
  t.equal(memo.size, 3)
  t.equal(memo.get('k6'), undefined)
  t.same([memo.get('k7'), memo.get('k8'), memo.get('k9')], [7, 8, 9])
})

t.test('a remembered opening never opens a tampered value or another record', async (t) => {
  const cipher = createTokenCipher(parseTokenKeys(`k1:${randomBytes(32).toString('base64')}`))
  const sealed = cipher.encrypt('secret tokens', 'grant:a')
  t.equal(cipher.decrypt(sealed, 'grant:a'), 'secret tokens')
  t.equal(cipher.decrypt(sealed, 'grant:a'), 'secret tokens', 'again, from the memo')
  t.throws(() => cipher.decrypt(sealed, 'grant:b'), 'another record still fails')
  const tampered = sealed.slice(0, -2) + (sealed.endsWith('A') ? 'BB' : 'AA')
  t.throws(() => cipher.decrypt(tampered, 'grant:a'), 'a tampered value still fails')
})
