// A hostile tenant for the relay's worst case: the hostile media service of the hardening tests
// (test/hardening/hostile-media-service.ts: a real HTTP server with the OAuth endpoints a sign-in
// needs) whose every library answer is one prebuilt JSON body of just under 4 MiB, the relay's
// cap, full of strings that carry the tenant's host: links that walk out of /api/ (each needs
// the full URL check), the host followed by text, and sentences that mention it. None of them
// may be rewritten, and each costs the link rewriter a look.
import { startHostileService, type HostileService } from '../../test/hardening/hostile-media-service.js'
import { serveParent } from './child-host.js'

/** Just under the relay's 4 MiB cap, so the answer is relayed whole. */
const BODY_BYTES = 4 * 1_048_576 - 4096

let service: HostileService | undefined

export function hostileListing (baseUrl: string, maxBytes = BODY_BYTES): { body: Buffer, strings: number } {
  const host = new URL(baseUrl).host
  const kinds = [
    (i: number) => `${baseUrl}/api/../x${i}`,
    (i: number) => `${host} text ${i}`,
    (i: number) => `see ${host}/api/files/${i} for more`,
    (i: number) => `HTTPS://${host}/api/%2e%2e/x${i}`
  ]
  const parts: string[] = []
  let size = '{"folder_id":0,"notes":[]}'.length
  let strings = 0
  for (let i = 0; ; i++) {
    const next = JSON.stringify((kinds[i % kinds.length] as (i: number) => string)(i))
    if (size + next.length + 1 > maxBytes) break
    parts.push(next)
    size += next.length + 1
    strings++
  }
  return { body: Buffer.from(`{"folder_id":0,"notes":[${parts.join(',')}]}`), strings }
}

serveParent({
  start: async () => {
    service = await startHostileService()
    const { body, strings } = hostileListing(service.baseUrl)
    service.answer('library', () => ({
      write: (response) => {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) })
        response.end(body)
      }
    }))
    return { baseUrl: service.baseUrl, bytes: body.length, strings }
  }
}, async () => { await service?.close() })
