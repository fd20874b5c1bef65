// A website of its own for a browser test: one page and its script (/site.js), on a loopback port
// of its own (another origin than media-bff's), closed at the test's teardown.
import { createServer } from 'node:http'
import type { Test } from 'tap'

export async function serveExampleSite (t: Test, port: number, { page, script }: { page: string, script: string }): Promise<void> {
  const site = createServer((request, response) => {
    const [type, body] = request.url === '/site.js' ? ['text/javascript', script] : ['text/html', page]
    response.writeHead(200, { 'content-type': `${type}; charset=utf-8` }).end(body)
  })
  await new Promise<void>((resolve) => site.listen(port, '127.0.0.1', resolve))
  t.teardown(async () => { await new Promise((resolve) => site.close(resolve)) })
}
