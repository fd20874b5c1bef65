// Where traced media-bff instances export their spans in the benchmark: an OTLP/HTTP receiver
// that reads each export and throws it away (200, an empty ExportTraceServiceResponse), in a
// process of its own, so neither the load generator nor the instances under test pay for it.
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { serveParent } from './child-host.js'

let server: Server | undefined
let exports = 0

serveParent({
  start: async () => {
    server = createServer((request, response) => {
      request.resume()
      request.once('end', () => {
        exports++
        response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end()
      })
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
  },
  /** How many exports arrived: proof the traced instances were exporting. */
  exports: () => ({ exports })
}, async () => {
  server?.closeAllConnections()
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined))
})
