// A proxy in front of the emulator's token endpoint that lets the emulator do its work at once
// and then holds the answer back: the authorization server has rotated the refresh token, but
// media-bff hears about it only after its timeout. The emulator's own delay fault cannot show
// this, since it waits before doing the work and gives up when the client does.
import { setTimeout as sleep } from 'node:timers/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface LateAnswerProxy {
  /** http://127.0.0.1:port, standing for the emulator's origin. */
  url: string
  /** Where requests go; set once the emulator runs (media-bff needs the proxy's URL first). */
  target: string
  /** Answers are held this long after the emulator answered; 0 forwards at once. */
  holdMs: number
  /** Requests whose answer was held (the emulator did the work either way). */
  held: number
  close: () => Promise<void>
}

export async function startLateAnswerProxy (): Promise<LateAnswerProxy> {
  const proxy: LateAnswerProxy = { url: '', target: '', holdMs: 0, held: 0, close: async () => {} }
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const headers: Record<string, string> = {}
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name)) headers[name] = value
      }
      const holdMs = proxy.holdMs
      fetch(`${proxy.target}${req.url ?? '/'}`, { method: req.method ?? 'GET', headers, ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}) })
        .then(async (answer) => {
          const body = Buffer.from(await answer.arrayBuffer())
          if (holdMs > 0) {
            proxy.held++
            await sleep(holdMs)
          }
          // The client may have given up meanwhile: that is the point.
          if (res.destroyed) return
          res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' })
          res.end(body)
        })
        .catch(() => { res.destroy() })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  proxy.close = async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  return proxy
}
