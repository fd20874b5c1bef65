// Bad input anywhere gets a clear 4xx JSON answer (error, error_description, user_message),
// never a 500: unknown routes, wrong methods, malformed and oversized bodies.
import { Readable } from 'node:stream'
import t from 'tap'
import { request } from 'undici'
import { errorShape, user, startTestEmulator } from '../helpers/emulator.js'

t.test('unknown routes are 404 and wrong methods 405, as JSON', async (t) => {
  const emulator = await startTestEmulator(t)
  const missing = await request(`${emulator.baseUrl}/api/nothing/here`)
  t.equal(missing.statusCode, 404)
  t.match(missing.headers['content-type'], /application\/json/)
  t.match(await missing.body.json(), { ...errorShape, error: 'not_found' })
  const wrong = await request(`${emulator.baseUrl}/api/oauth2/token`)
  t.equal(wrong.statusCode, 405)
  t.equal(wrong.headers.allow, 'POST')
  t.match(await wrong.body.json(), { ...errorShape, error: 'method_not_allowed' })
  const badEscape = await request(`${emulator.baseUrl}/api/upload/id/%E0%A4%A`, { method: 'DELETE' })
  t.equal(badEscape.statusCode, 404)
  await badEscape.body.dump()
})

t.test('malformed, oversized and unknown bodies are 400, 413 and 415', async (t) => {
  const emulator = await startTestEmulator(t)
  const url = `${emulator.baseUrl}/api/upload/id`
  const auth = { authorization: `Private-Token ${user(emulator, 'alice').privateToken}` }
  const send = async (headers: Record<string, string>, body?: string | Buffer | Readable): Promise<{ status: number, body: unknown }> => {
    const answer = await request(url, { method: 'POST', headers: { ...auth, ...headers }, body })
    return { status: answer.statusCode, body: await answer.body.json() }
  }
  const json = { 'content-type': 'application/json' }
  const malformed = await send(json, '{"folder_id": ')
  t.equal(malformed.status, 400)
  t.match(malformed.body, { ...errorShape, error: 'invalid_request', error_description: /not valid JSON/ })
  t.equal((await send(json, '[1, 2]')).status, 400, 'a JSON array')
  t.equal((await send(json, 'null')).status, 400, 'JSON null')
  const big = Buffer.from(JSON.stringify({ folder_id: 1, padding: 'x'.repeat(1024 * 1024) }))
  const oversized = await send(json, big)
  t.equal(oversized.status, 413)
  t.match(oversized.body, { ...errorShape, error: 'payload_too_large' })
  async function * chunked (): AsyncGenerator<Buffer> {
    yield Buffer.from('{"padding": "')
    for (let i = 0; i < 20; i++) yield Buffer.alloc(64 * 1024, 'x')
    yield Buffer.from('"}')
  }
  t.equal((await send(json, Readable.from(chunked()))).status, 413, 'also without a Content-Length')
  const text = await send({ 'content-type': 'text/plain' }, 'folder_id=1')
  t.equal(text.status, 415)
  t.match(text.body, errorShape)
  t.equal((await send({ 'content-type': 'multipart/form-data; boundary=x' }, '--x\r\nbroken')).status, 400, 'a broken multipart body')
  t.equal(emulator.counters().registrations, 0)
})

t.test('no input reaches a 500', async (t) => {
  const emulator = await startTestEmulator(t)
  const token = user(emulator, 'alice').privateToken
  const targets: Array<[string, string]> = [
    ['GET', '/api/oauth2/authorize'], ['POST', '/api/oauth2/authorize'], ['POST', '/api/oauth2/token'],
    ['GET', '/api/user/info'], ['POST', '/api/upload/id'], ['DELETE', '/api/upload/id/01ARZ3NDEKTSV4RRFFQ69G5FAV'],
    ['POST', '/api/upload/file'], ['GET', '/api/folders/0'], ['GET', '/api/folders/0/contents'], ['GET', '/api/files/1'],
    ['POST', '/api/folders/0'], ['PUT', '/api/folders/1'], ['DELETE', '/api/folders/8'], ['PUT', '/api/files/1001'], ['DELETE', '/api/files/1'],
    ['GET', '/api/folders/1/share'], ['POST', '/api/files/0/share/link'], ['GET', '/api/oembed'],
    ['POST', '/__emulator/faults'], ['POST', '/__emulator/config'], ['POST', '/__emulator/revoke']
  ]
  const bodies: Array<[string | undefined, string | undefined]> = [
    [undefined, undefined],
    ['application/json', '{'],
    ['application/json', '{"folder_id": {"$gt": 1}, "private_token": ["a", "b"], "endpoint": 5, "user": 1}'],
    ['application/json', '{"name": {"a": 1}, "title": ["x"], "files": [{"id": 1}, null], "expires": [1], "download": {}}'],
    ['application/x-www-form-urlencoded', 'a=%%%&folder_id[]=1&private_token=&grant_type=authorization_code&code='],
    ['multipart/form-data; boundary=b', '--b\r\nContent-Disposition: form-data; name="file"; filename="x.txt"\r\n\r\nabc\r\n--b--\r\n'],
    ['multipart/form-data', 'no boundary'],
    ['application/octet-stream', '\u0000\u0001']
  ]
  let checked = 0
  for (const [method, path] of targets) {
    for (const [type, body] of bodies) {
      for (const authorization of [undefined, `Private-Token ${token}`, 'Bearer', 'Private-Token \u00e9']) {
        const headers: Record<string, string> = {}
        if (type !== undefined) headers['content-type'] = type
        if (authorization !== undefined) headers.authorization = authorization
        const answer = await request(`${emulator.baseUrl}${path}?folder_id=-1&client_id=x&files=2&url=%00`, { method: method as 'GET', headers, body: method === 'GET' ? undefined : body })
        const text = await answer.body.text()
        if (answer.statusCode >= 500) t.fail(`${method} ${path} ${type ?? ''} answered ${answer.statusCode}: ${text}`)
        checked++
      }
    }
  }
  t.ok(checked > 500, `${checked} requests, none answered 5xx`)
})
