// The ioredis patch (patches/README.md): a second 'error' on a connection's socket (a TLS socket
// emits one for a refused certificate and another for the server's alert) no longer escapes as
// an uncaught exception that ends the process.
import { createRequire } from 'node:module'
import { readFile } from 'node:fs/promises'
import { createServer, type Socket } from 'node:net'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { Redis } from 'ioredis'

const require = createRequire(import.meta.url)

t.test('the installed ioredis carries the patch, for single servers and Sentinel alike', async (t) => {
  for (const file of ['ioredis/built/connectors/StandaloneConnector.js', 'ioredis/built/connectors/SentinelConnector/index.js']) {
    t.match(await readFile(require.resolve(file), 'utf8'), 'media-bff patch (patches/README.md)', file)
  }
})

t.test('a socket that errs twice: the second error is not uncaught', async (t) => {
  // Accepts connections and never answers: enough for ioredis to hold a socket.
  const sockets: Socket[] = []
  const server = createServer((socket) => { sockets.push(socket) })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => { for (const socket of sockets) socket.destroy(); server.close() })
  const client = new Redis({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', lazyConnect: true, enableReadyCheck: false, retryStrategy: () => null, maxRetriesPerRequest: 0 })
  client.on('error', () => {})
  t.teardown(() => { client.disconnect() })
  const connected = once(client, 'connect')
  client.connect().catch(() => {})
  await connected
  const stream = (client as unknown as { stream: Socket }).stream
  stream.emit('error', new Error('certificate refused'))
  t.doesNotThrow(() => stream.emit('error', new Error('the server\'s alert')), 'the second error has a listener too')
})
