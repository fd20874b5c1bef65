// The request id on a token request (src/oauth/authorization-server.ts): openid-client takes no
// headers per call, so the id rides to media-bff's fetch as an extra grant parameter, which the
// fetch turns into X-Request-Id. A token endpoint that records what it receives shows the header
// arrives and the parameter never does.
import t from 'tap'
import { once } from 'node:events'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Agent } from 'undici'
import { loadConfig } from '../../src/config/config.js'
import { createAuthorizationServers, refreshTokens } from '../../src/oauth/authorization-server.js'
import { TEST_SESSION_SECRET, testTokenKey } from '../helpers/bff.js'

t.test('a refresh for a request sends its id as X-Request-Id, and nothing of it in the body', async (t) => {
  const received: Array<{ headers: IncomingHttpHeaders, body: URLSearchParams }> = []
  const endpoint = createServer((request, response) => {
    let text = ''
    request.setEncoding('utf8').on('data', (chunk: string) => { text += chunk }).on('end', () => {
      received.push({ headers: request.headers, body: new URLSearchParams(text) })
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: 'new-access', refresh_token: 'new-refresh', token_type: 'Bearer', expires_in: 3600 }))
    })
  })
  endpoint.listen(0, '127.0.0.1')
  await once(endpoint, 'listening')
  t.teardown(() => { endpoint.close() })
  const agent = new Agent()
  t.teardown(async () => { await agent.close() })
  const config = loadConfig({
    PUBLIC_URL: 'http://127.0.0.1:3000',
    MEDIA_BASE_URL: `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}`,
    OAUTH_CLIENT_ID: 'client',
    OAUTH_CLIENT_SECRET: 'client-secret',
    SESSION_SECRETS: TEST_SESSION_SECRET,
    TOKEN_KEYS: testTokenKey()
  })
  const server = createAuthorizationServers(config, agent, 5000).get('default')
  if (server === undefined) throw new Error('no authorization server for the default tenant')

  t.match(await refreshTokens(server, 'the-refresh-token', 'nginx-0001'), { accessToken: 'new-access', refreshToken: 'new-refresh' })
  t.match(await refreshTokens(server, 'new-refresh'), { accessToken: 'new-access' })
  const [withId, withoutId] = received
  t.equal(withId?.headers['x-request-id'], 'nginx-0001', 'the id as the header')
  t.same([...withId?.body.keys() ?? []].sort(), ['client_id', 'client_secret', 'grant_type', 'refresh_token'], 'the grant\'s parameters and nothing else')
  t.equal(withId?.body.get('refresh_token'), 'the-refresh-token')
  t.equal(withoutId?.headers['x-request-id'], undefined, 'no request, no id')
  t.same([...withoutId?.body.keys() ?? []].sort(), ['client_id', 'client_secret', 'grant_type', 'refresh_token'])
})
