// The demo website at / (on with `npm start`, or DEMO_SITE=on): static HTML and CSS from
// public/, and its script as `npm run build` bundled it from public/demo.ts (package.json's
// build:demo). The bundler is a dev dependency: nothing is bundled at run time.
import fp from 'fastify-plugin'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

const fromDist = import.meta.url.includes('/dist/')

/** public/ at the project root, whether running from plugins (tsx) or dist/plugins (compiled). */
const publicDir = fileURLToPath(new URL(fromDist ? '../../public/' : '../public/', import.meta.url))

/** dist/demo-site/demo.js, where build:demo writes the bundle, seen from either place. */
export const demoBundleFile = fileURLToPath(new URL(fromDist ? '../demo-site/demo.js' : '../dist/demo-site/demo.js', import.meta.url))

const STATIC_FILES: Record<string, { file: string, type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/demo.css': { file: 'demo.css', type: 'text/css; charset=utf-8' }
}

/** The prebuilt script; a missing bundle stops start-up with what to run. */
export async function readDemoBundle (file = demoBundleFile): Promise<string> {
  try {
    return await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    throw new Error(`The demo site's script ${file} is missing: run \`npm run build\` first (it bundles public/demo.ts), or turn DEMO_SITE off.`)
  }
}

export default fp(async (app) => {
  const files = new Map<string, { body: string, type: string }>()
  for (const [path, { file, type }] of Object.entries(STATIC_FILES)) {
    files.set(path, { body: await readFile(`${publicDir}${file}`, 'utf8'), type })
  }
  files.set('/demo.js', { body: await readDemoBundle(), type: 'text/javascript; charset=utf-8' })

  for (const [path, { body, type }] of files) {
    app.get(path, { schema: { hide: true }, config: { caller: 'anyone' } }, async (_request, reply) => {
      return await reply.type(type).header('cache-control', 'no-cache').send(body)
    })
  }
}, { name: 'demo-site', dependencies: ['config'] })
