// The reference for media-bff's proxied calls: the least a Fastify server can do to make the same
// upstream call. No session, no cookie, no store, no rate limit, no validation beyond the JSON
// body parser, no metrics, no deadline signal: one pooled undici Agent (sized like media-bff's)
// and a fixed `Authorization: Bearer <access token>` set by the parent (at start, and again after
// each emptying of the emulator, which forgets every token).
//
// POST /uploads/register  → POST {api}/upload/id, the same url-encoded fields media-bff sends for
//                           {"folder_id": n} (routes/uploads.ts, registrationFields), JSON back.
// GET /api/folders/0/contents → GET {api}/folders/0/contents, the answer streamed back as is.
import Fastify, { type FastifyInstance } from 'fastify'
import { Agent, type Dispatcher } from 'undici'
import { serveParent } from './child-host.js'

let app: FastifyInstance | undefined
let agent: Agent | undefined
let authorization = ''

serveParent({
  start: async (message) => {
    const port = message.port as number
    const api = new URL(message.apiUrl as string)
    const origin = api.origin
    const apiPath = api.pathname.replace(/\/+$/, '')
    authorization = `Bearer ${message.token as string}`
    agent = new Agent({ connections: 64, keepAliveTimeout: 10_000 })
    const upstream = agent
    const hop = Fastify({ logger: false })

    hop.post('/uploads/register', async (request, reply) => {
      const folderId = (request.body as { folder_id?: unknown } | undefined)?.folder_id ?? 0
      const response = await upstream.request({
        origin,
        path: `${apiPath}/upload/id`,
        method: 'POST',
        headers: { authorization, accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ folder_id: String(folderId), hide_response: 'true' }).toString()
      })
      const answer = await response.body.json()
      reply.code(response.statusCode).header('cache-control', 'no-store')
      return answer
    })

    hop.get('/api/folders/0/contents', async (_request, reply) => {
      const response: Dispatcher.ResponseData = await upstream.request({
        origin,
        path: `${apiPath}/folders/0/contents`,
        method: 'GET',
        headers: { authorization, accept: 'application/json' }
      })
      reply.code(response.statusCode)
      const type = response.headers['content-type']
      if (typeof type === 'string') reply.header('content-type', type)
      return await reply.send(response.body)
    })

    app = hop
    await hop.listen({ host: '127.0.0.1', port })
    return { url: `http://127.0.0.1:${port}` }
  },
  token: (message) => {
    authorization = `Bearer ${message.token as string}`
    return {}
  }
}, async () => {
  await app?.close()
  await agent?.close()
})
