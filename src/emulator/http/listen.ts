// Starts a node:http server and stops it hard: stop() closes every open connection (keep-alive
// ones and uploads in flight included), so a test's teardown never waits for a client.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ListeningServer {
  port: number
  close: () => Promise<void>
}

export async function listen (host: string, port: number, handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<ListeningServer> {
  const server = createServer(handle)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ host, port }, () => {
      server.off('error', reject)
      resolve()
    })
  })
  let closing: Promise<void> | undefined
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
      await closing
    }
  }
}

/** The origin clients use for a listening address; wildcard addresses become loopback. */
export function originFor (host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`
}
