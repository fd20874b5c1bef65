// The demo website at / (on with `npm start`, or DEMO_SITE=on): static HTML and CSS from
// public/, and its TypeScript bundled once at start with esbuild, so no build step is needed.
import fp from 'fastify-plugin'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

/** public/ at the project root, whether running from src (tsx) or dist (compiled). */
const publicDir = fileURLToPath(new URL(import.meta.url.includes('/dist/') ? '../../public/' : '../public/', import.meta.url))

const STATIC_FILES: Record<string, { file: string, type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/demo.css': { file: 'demo.css', type: 'text/css; charset=utf-8' }
}

export default fp(async (app) => {
  const bundle = await build({
    entryPoints: [`${publicDir}demo.ts`],
    bundle: true,
    format: 'esm',
    target: 'es2020',
    minify: true,
    write: false,
    logLevel: 'silent'
  })
  const script = bundle.outputFiles[0]?.text ?? ''
  const files = new Map<string, { body: string, type: string }>()
  for (const [path, { file, type }] of Object.entries(STATIC_FILES)) {
    files.set(path, { body: await readFile(`${publicDir}${file}`, 'utf8'), type })
  }
  files.set('/demo.js', { body: script, type: 'text/javascript; charset=utf-8' })

  for (const [path, { body, type }] of files) {
    app.get(path, { schema: { hide: true } }, async (_request, reply) => {
      return await reply.type(type).header('cache-control', 'no-cache').send(body)
    })
  }
}, { name: 'demo-site', dependencies: ['config'] })
