// Run by stop-leaves-nothing.test.ts in a process of its own: an emulator holding a file in
// processing for ten minutes and a webhook delivery waiting ten minutes for its retry, stopped.
// Nothing may keep this process alive after that: it must end by itself.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { startEmulator } from '../../emulator/index.js'

const tenMinutes = 600_000
const receiver = createServer((request, response) => {
  request.resume()
  request.on('end', () => { response.writeHead(500).end() })
})
await new Promise<void>((resolve) => { receiver.listen(0, '127.0.0.1', resolve) })
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`
const emulator = await startEmulator({
  apiPort: 0,
  uploadPort: 0,
  processingMs: tenMinutes,
  webhookRetryDelaysMs: [tenMinutes, tenMinutes, tenMinutes],
  webhooks: [{ user: 'alice', url, key: 'k' }]
})
const alice = emulator.users.find((user) => user.name === 'alice')
const form = new FormData()
form.append('file', new Blob(['a clip']), 'clip.mp4')
const uploaded = await fetch(`${emulator.baseUrl}/api/upload/file`, { method: 'POST', headers: { authorization: `Private-Token ${alice?.privateToken ?? ''}` }, body: form })
await uploaded.arrayBuffer()
const deadline = Date.now() + 15_000
while (emulator.webhooksSent().length === 0) {
  if (Date.now() > deadline) throw new Error('the first delivery attempt never came')
  await sleep(20)
}
await emulator.stop()
receiver.closeAllConnections()
receiver.close()
process.stdout.write(`stopped with ${JSON.stringify(emulator.webhooksSent().map((attempt) => attempt.status))}\n`)
