// The log search itself: a secret planted in the usual shapes a leak takes must be found, and
// its value must never appear in the report. Then the logs of a real app are searched.
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { ClientError, ResponseBodyError } from 'openid-client'
import { startStack } from '../helpers/bff.js'
import { Browser } from '../helpers/http-client.js'
import { issuedTokens } from '../helpers/issued-tokens.js'
import { signIn } from '../helpers/sign-in.js'
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

// What a real app logs: its own error codes stay readable, and nothing an openid-client error
// drags along (the callback's parameters, token bodies, headers, the upstream Response, stack
// frames) reaches a log line.
t.test('a real app logs an AppError\'s code and an error as type, code and message, never a secret', async (t) => {
  const stack = await startStack({ emulator: { clientSecret: secret() }, env: { OAUTH_SCOPES: 'basic user.info upload' } })
  t.teardown(stack.close)
  const { bff, emulator } = stack
  const browser = bff.browser()
  const { callbackUrl } = await signIn(browser)
  const ledger = new SecretLedger()
  ledger.addCallback(callbackUrl)
  ledger.addCookies(browser)
  await ledger.addEmulator(emulator)
  const [accessToken = '', refreshToken = ''] = [(await issuedTokens(emulator.baseUrl)).access[0], (await issuedTokens(emulator.baseUrl)).refresh[0]]
  const callback = new URL(callbackUrl)
  const code = callback.searchParams.get('code') ?? ''
  const state = callback.searchParams.get('state') ?? ''
  t.ok(accessToken !== '' && refreshToken !== '' && code !== '' && state !== '', 'a real sign-in handed out a code and tokens')

  // A failing media service: the contract's 502, logged by plugins/errors.ts with its code.
  emulator.injectFault({ endpoint: 'upload_id', failStatus: 500, failCount: 1 })
  const failed = await browser.post('/uploads/register', { folder_id: 0 })
  t.equal(failed.status, 502)
  t.equal(failed.json().error, 'upstream_error')

  // The relay: a call, a refused token (refresh and retry), a failing service, an oEmbed query.
  t.equal((await browser.get('/api/folders/0/contents')).status, 200)
  emulator.injectFault({ endpoint: 'library', failStatus: 401, failCount: 1 })
  t.equal((await browser.get('/api/folders/0')).status, 200)
  emulator.injectFault({ endpoint: 'library', failStatus: 500, failCount: 1 })
  t.equal((await browser.get('/api/folders/0')).status, 502)
  await browser.get(`/api/oembed?url=${encodeURIComponent(`${emulator.baseUrl}/share/1?token=${accessToken}`)}`)
  await ledger.addEmulator(emulator)

  // Errors shaped as openid-client throws them, each carrying real secrets of this sign-in.
  const response = new Response(JSON.stringify({ access_token: accessToken }), { status: 400, headers: { authorization: `Bearer ${accessToken}` } })
  const bodyError = new ResponseBodyError('server responded with an error in the response body', {
    cause: { error: 'invalid_grant', error_description: 'bad code', access_token: accessToken, refresh_token: refreshToken },
    response
  })
  // openid-client's constructor takes { cause, code }; its declared type only ErrorOptions.
  const processingError = new ClientError('invalid response encountered', {
    cause: { parameters: { code, state }, body: { access_token: accessToken, refresh_token: refreshToken }, headers: { authorization: `Bearer ${accessToken}`, cookie: [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ') } }
  })
  processingError.code = 'OAUTH_INVALID_RESPONSE'
  const withUrl = new Error(`GET ${bff.url}/auth/callback?code=${code}&state=${state} failed`)
  bff.app.log.error({ err: bodyError }, 'token exchange failed')
  bff.app.log.error({ err: processingError }, 'token exchange failed')
  bff.app.log.warn({ error: withUrl }, 'callback failed')
  // Where the authorization code itself would appear: still redacted without `*.code`.
  bff.app.log.info({ query: { code, state }, body: { grant_type: 'authorization_code', code, code_verifier: secret() }, parameters: { code } }, 'callback parameters')

  const lines = bff.logs.join('').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Record<string, any>)
  const requestFailed = lines.find((line) => line.msg === 'request failed')
  t.match(requestFailed?.err, { code: 'upstream_error' }, 'the AppError\'s code is readable, not [redacted]')

  const summaries = lines.filter((line) => line.msg === 'token exchange failed').map((line) => line.err)
  t.same(summaries, [
    { type: 'ResponseBodyError', code: 'OAUTH_RESPONSE_BODY_ERROR', message: 'server responded with an error in the response body' },
    { type: 'ClientError', code: 'OAUTH_INVALID_RESPONSE', message: 'invalid response encountered' }
  ], 'type, code and message only: no cause, body, headers, response or stack')
  const withQuery = lines.find((line) => line.msg === 'callback failed')
  t.same(Object.keys(withQuery?.error ?? {}).sort(), ['message', 'type'])
  t.notMatch(withQuery?.error.message, /code=|state=/, 'a query string inside a message is cut off')
  const parameters = lines.find((line) => line.msg === 'callback parameters')
  t.match(parameters, { query: { code: '[redacted]', state: '[redacted]' }, body: { code: '[redacted]', code_verifier: '[redacted]' }, parameters: { code: '[redacted]' } })

  t.same(ledger.leaksIn(bff.logs.join('')), [], `no secret in ${lines.length} log lines (searched for ${JSON.stringify(ledger.kinds())})`)
})
