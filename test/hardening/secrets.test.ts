// The log search itself: a secret planted in the usual shapes a leak takes must be found, and
// its value must never appear in the report.
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { Browser } from '../helpers/http-client.js'
import { SecretLedger } from './secrets.js'

const secret = (): string => randomBytes(32).toString('base64url')

t.test('finds secrets in JSON, query strings, headers and encoded cookies', async (t) => {
  const ledger = new SecretLedger()
  const [token, code, state, id] = [secret(), secret(), secret(), secret().slice(0, 32)]
  ledger.add('access token', token)
  ledger.addCallback(`https://bff.example/auth/callback?code=${code}&state=${state}`)
  const browser = new Browser('http://127.0.0.1:1')
  const signature = randomBytes(32).toString('base64').replace(/=+$/, '')
  browser.cookies.set('media-bff', encodeURIComponent(`${id}.${signature}`))
  ledger.addCookies(browser)

  t.same(ledger.leaksIn('{"level":30,"msg":"request completed","path":"/auth/session"}'), [], 'nothing in a clean line')
  t.same(ledger.leaksIn(`{"headers":{"authorization":"Bearer ${token}"}}`), ['access token ×1'])
  t.same(ledger.leaksIn(`GET /auth/callback?state=${state}&code=${code}`), ['state ×1', 'code ×1'])
  t.same(ledger.leaksIn(`cookie: media-bff=${encodeURIComponent(`${id}.${signature}`)}`).length > 0, true, 'an encoded signed cookie')
  t.same(ledger.leaksIn(`sess:${id}`), ['cookie media-bff ×1'], 'the bare session id')
  t.same(ledger.leaksIn(`x${token}y`), ['access token ×1'], 'glued to other characters')
  t.notMatch(ledger.leaksIn(`${token} ${code}`).join(' '), token, 'the report names kinds, never values')
})
