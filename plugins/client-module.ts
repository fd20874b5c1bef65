// The browser module, served by media-bff itself so a website without a bundler imports the very
// version that matches its server (README.md, "The browser module"):
//   /client/<version>/media-bff-client.js and .d.ts   long-lived, immutable: <version> changes
//                                                     whenever the file does
//   /client/media-bff-client.js and .d.ts             a redirect to the current version, never cached
// <version> is package.json's version and the start of the file's SHA-256, so a new build can
// never hide behind an old URL in someone's cache. Built by `npm run build` (build:client);
// nothing is bundled at run time. Open to every origin: it is public code, fetched in CORS mode
// by pages that import it.
import fp from 'fastify-plugin'
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { AppError } from '../src/errors.js'

const fromDist = import.meta.url.includes('/dist/')
const root = fileURLToPath(new URL(fromDist ? '../../' : '../', import.meta.url))
/** Where build:client writes the module, whether running from plugins (tsx) or dist/plugins. */
export const clientModuleDir = `${root}dist/client/`

const FILES = {
  'media-bff-client.js': 'text/javascript; charset=utf-8',
  'media-bff-client.d.ts': 'text/plain; charset=utf-8'
} as const
type ClientFile = keyof typeof FILES

const A_YEAR_S = 31_536_000

/** The built module and its version; a missing build stops start-up with what to run. */
export async function readClientModule (dir = clientModuleDir): Promise<{ version: string, files: Record<ClientFile, string> }> {
  const files = {} as Record<ClientFile, string>
  for (const name of Object.keys(FILES) as ClientFile[]) {
    try {
      files[name] = await readFile(`${dir}${name}`, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      throw new Error(`The browser module ${dir}${name} is missing: run \`npm run build\` first (build:client bundles public/client/).`)
    }
  }
  const { version } = JSON.parse(await readFile(`${root}package.json`, 'utf8')) as { version: string }
  const digest = createHash('sha256').update(files['media-bff-client.js']).update(files['media-bff-client.d.ts']).digest('hex').slice(0, 10)
  return { version: `${version}-${digest}`, files }
}

export default fp(async (app) => {
  const { version, files } = await readClientModule()
  const current = `/client/${version}/`
  app.get('/client/:file', { schema: { hide: true } }, async (request, reply) => {
    const { file } = request.params as { file: string }
    if (!Object.hasOwn(FILES, file)) throw new AppError('not_found', `There is no /client/${file}; the browser module is ${current}media-bff-client.js.`)
    // A page of any origin imports it in CORS mode, which the redirect must allow as well.
    return await reply.header('cache-control', 'no-cache').header('access-control-allow-origin', '*').redirect(`${current}${file}`, 302)
  })
  app.get('/client/:version/:file', { schema: { hide: true } }, async (request, reply) => {
    const { version: asked, file } = request.params as { version: string, file: string }
    if (asked !== version || !Object.hasOwn(FILES, file)) {
      throw new AppError('not_found', `This media-bff serves the browser module as ${current}media-bff-client.js (and .d.ts), not /client/${asked}/${file}.`)
    }
    return await reply
      .type(FILES[file as ClientFile])
      .header('cache-control', `public, max-age=${A_YEAR_S}, immutable`)
      .header('access-control-allow-origin', '*')
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('x-content-type-options', 'nosniff')
      .send(files[file as ClientFile])
  })
}, { name: 'client-module', dependencies: ['config'] })
