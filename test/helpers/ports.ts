import { setTimeout as sleep } from 'node:timers/promises'
import { createServer } from 'node:net'

/** Asks the kernel for a free loopback port. */
export async function freePort (): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => {
        if (address !== null && typeof address === 'object') resolve(address.port)
        else reject(new Error('no port'))
      })
    })
  })
}

/** Resolves once something accepts TCP connections on host:port, or rejects after timeoutMs. */
export async function waitForPort (port: number, host = '127.0.0.1', timeoutMs = 10_000): Promise<void> {
  const { connect } = await import('node:net')
  const deadline = Date.now() + timeoutMs
  while (true) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, host)
      socket.once('connect', () => { socket.destroy(); resolve(true) })
      socket.once('error', () => { socket.destroy(); resolve(false) })
    })
    if (ok) return
    if (Date.now() > deadline) throw new Error(`nothing listened on ${host}:${port} within ${timeoutMs} ms`)
    await sleep(50)
  }
}
