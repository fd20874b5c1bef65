// A stand-in for the media service as cheap as a bare hop's own work: every answer is worked out
// once at start and written as it is, by node:http alone. The emulator spends some 80 µs of CPU
// on a registration, which dilutes what media-bff adds beside a bare hop; this spends a few. It
// speaks just enough of the service for a signed-in session and the two measured calls:
//   GET  /api/oauth2/authorize    back to the redirect URI with a code (no consent page)
//   POST /api/oauth2/token        the same token set for every code and refresh
//   GET  /api/user/info           one person, entitled to basic, user.info and upload
//   POST /api/upload/id           a registration record (a new ulid each time: media-bff keeps them)
//   GET  /api/folders/0/contents  a listing of the emulator's shape: 20 files and their links
// Anything else is a 404 in the service's shape.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { serveParent } from './child-host.js'

let server: Server | undefined

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'

/** A listing as the emulator answers one (emulator/library/folder-routes.ts), links on `origin`. */
function listing (origin: string): string {
  const folder = (id: number, name: string) => {
    const self = `${origin}/api/folders/${id}`
    return { folder_id: id, name, parent_id: 0, created: 1_795_000_000, folder_count: 0, file_count: 0, api: { self, contents: `${self}/contents`, share: `${self}/share` } }
  }
  const file = (id: number) => {
    const self = `${origin}/api/files/${id}`
    return {
      file_id: id,
      folder_id: 0,
      title: `Bench file ${id}`,
      filename: `bench-${id}.mp4`,
      size: 1024 + id,
      mime_type: 'video/mp4',
      created: 1_795_000_000 + id,
      status: 'ready',
      urls: { file: `${origin}/media/${id}/bench-${id}.mp4` },
      api: { self, share: `${self}/share` }
    }
  }
  return JSON.stringify({
    folder_id: 0,
    folders: [folder(11, 'Campaigns'), folder(12, 'Drafts')],
    files: Array.from({ length: 20 }, (_, i) => file(1001 + i))
  })
}

serveParent({
  start: async (message) => {
    const port = message.port as number
    const origin = `http://127.0.0.1:${port}`
    const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value))
    const tokens = json({ access_token: 'stub-access-token', refresh_token: 'stub-refresh-token', expires_in: 3600, token_type: 'Bearer', scope: 'basic user.info upload', user_id: 1 })
    const userInfo = json({ user_id: 1, name: 'Bench Person', email: 'bench@example.test', scopes: ['basic', 'user.info', 'upload'] })
    const contents = Buffer.from(listing(origin))
    const notFound = json({ error: 'not_found', error_description: 'No such call on the stub.' })
    const jsonHead = { 'content-type': 'application/json; charset=utf-8' }
    const contentsHead = { ...jsonHead, 'content-length': String(contents.length), etag: '"bench-listing-1"' }
    let registered = 0
    /** A ULID's shape: 26 characters of Crockford's base 32, different for every call. */
    const ulid = (): string => {
      let n = ++registered
      let digits = ''
      for (let i = 0; i < 23; i++) {
        digits = CROCKFORD[n % 32] + digits
        n = Math.floor(n / 32)
      }
      return `01K${digits}`
    }

    const answer = (response: ServerResponse, status: number, body: Buffer, head: Record<string, string> = jsonHead): void => {
      response.writeHead(status, { ...head, 'content-length': String(body.length) })
      response.end(body)
    }
    const route = (request: IncomingMessage, response: ServerResponse): void => {
      const { method, url = '' } = request
      if (method === 'GET' && url === '/api/folders/0/contents') {
        response.writeHead(200, contentsHead)
        response.end(contents)
      } else if (method === 'POST' && url === '/api/upload/id') {
        const id = ulid()
        answer(response, 200, json({
          ulid: id,
          expires: Math.floor(Date.now() / 1000) + 3600,
          expires_in: 3600,
          url_upload_direct: `${origin}/upload/${id}?signature=bench`,
          api: { rel: `${origin}/api/upload/id/${id}`, upload: `${origin}/upload/${id}`, finish: `${origin}/api/upload/id/${id}` }
        }))
      } else if (method === 'POST' && url === '/api/oauth2/token') {
        answer(response, 200, tokens)
      } else if (method === 'GET' && url === '/api/user/info') {
        answer(response, 200, userInfo)
      } else if (method === 'GET' && url.startsWith('/api/oauth2/authorize?')) {
        const query = new URL(url, origin).searchParams
        const back = new URL(query.get('redirect_uri') ?? '')
        back.searchParams.set('code', 'stub-code')
        back.searchParams.set('state', query.get('state') ?? '')
        response.writeHead(302, { location: back.href, 'content-length': '0' })
        response.end()
      } else {
        answer(response, 404, notFound)
      }
    }
    server = createServer({ keepAliveTimeout: 10_000 }, (request, response) => {
      // Bodies are read to their end (a registration's form), never looked at.
      request.resume()
      request.on('end', () => { route(request, response) })
    })
    await new Promise<void>((resolve) => { server?.listen(port, '127.0.0.1', resolve) })
    return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
  }
}, async () => {
  await new Promise<void>((resolve) => { server?.close(() => { resolve() }) ?? resolve() })
})
