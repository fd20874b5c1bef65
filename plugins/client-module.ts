// The browser module, served by media-bff itself so a website without a bundler imports the very
// version that matches its server (docs/guide/browser-module.md, "Getting it"):
//   /client/media-bff-client.js and .d.ts             the current module itself, revalidated on
//                                                     every use (ETag): a page importing it never
//                                                     depends on two replicas agreeing
//   /client/<version>/media-bff-client.js and .d.ts   long-lived, immutable: <version> changes
//                                                     whenever the file does
// <version> is package.json's version and the start of the file's SHA-256, so a new build can
// never hide behind an old URL in someone's cache. During a rolling upgrade a replica asked for a
// version it does not hold (one the other version's replicas serve) answers with its current
// module, uncached, rather than failing the page's import. Built by `npm run build` (build:client); nothing
// is bundled at run time. Open to every origin: it is public code, fetched in CORS mode by pages
// that import it. Paths below are under BASE_PATH (plugins/base-path.ts).
import fp from 'fastify-plugin'
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { Type, type TSchema } from '@fastify/type-provider-typebox'
import { AppError } from '../src/errors.js'
import { version as serverVersion } from '../src/version.js'
import { empty, header, refusals, text } from '../routes/responses.js'

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

// For the description only: the handlers check the names themselves and answer an unknown one
// with 404, so nothing here constrains them.
const File = Type.String({ description: 'media-bff-client.js (the module) or media-bff-client.d.ts (its types)', examples: Object.keys(FILES) })
const Version = Type.String({ description: 'package.json\'s version and the start of the files\' SHA-256' })
const SERVED_TYPES = ['text/javascript', 'text/plain']
const ANY_ORIGIN = { 'Access-Control-Allow-Origin': header(Type.String({ const: '*', description: 'Public code: any page may import it' }), true) }
const ETAG = header(Type.String({ description: 'The current version, quoted: what If-None-Match names to revalidate it' }), true)
const CACHE_CONTROL = (description: string): TSchema => header(Type.String({ description }), true)
const UNKNOWN = (what: string): Record<string, unknown> => refusals({ own: { 404: [`\`not_found\`: ${what}; the answer names the current module's paths`] } })
const CURRENT_SCHEMA = {
  tags: ['client'],
  operationId: 'getClientModule',
  summary: 'The browser module, its current version: revalidated on every use (ETag), open to every origin',
  params: Type.Object({ file: File }),
  response: {
    200: text(SERVED_TYPES, 'The module (text/javascript) or its type declarations (text/plain)', { ...ANY_ORIGIN, ETag: ETAG, 'Cache-Control': CACHE_CONTROL('`no-cache`: revalidated on every use') }),
    304: empty('Not modified: If-None-Match names the current version', { ...ANY_ORIGIN, ETag: ETAG }),
    ...UNKNOWN('no such file')
  }
}
const VERSIONED_SCHEMA = {
  tags: ['client'],
  operationId: 'getClientModuleVersion',
  summary: 'The browser module, one version of it: cached for good (immutable), open to every origin',
  params: Type.Object({ version: Version, file: File }),
  response: {
    200: text(SERVED_TYPES, 'That version, cached for good; for a version this replica does not hold (another replica\'s, during an upgrade), its current module, never cached', {
      ...ANY_ORIGIN,
      'Cache-Control': CACHE_CONTROL('`public, max-age=31536000, immutable` for this replica\'s version; `no-store` for another\'s')
    }),
    ...UNKNOWN('no such file, or not the form of a version')
  }
}

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
  const digest = createHash('sha256').update(files['media-bff-client.js']).update(files['media-bff-client.d.ts']).digest('hex').slice(0, 10)
  return { version: `${serverVersion}-${digest}`, files }
}

/** What a version looks like (readClientModule): a well-formed one this replica lacks belongs to another. */
const VERSION = /^\d+\.\d+\.\d+(-[0-9A-Za-z.]+)?-[0-9a-f]{10}$/

export default fp(async (app) => {
  const { version, files } = await readClientModule()
  const stable = `${app.config.basePath}/client/`
  const current = `${stable}${version}/`
  const etag = `"${version}"`
  const isFile = (file: string): file is ClientFile => Object.hasOwn(FILES, file)
  const publicCode = { 'access-control-allow-origin': '*', 'cross-origin-resource-policy': 'cross-origin', 'x-content-type-options': 'nosniff' }

  app.get('/client/:file', { schema: CURRENT_SCHEMA, config: { caller: 'anyone' } }, async (request, reply) => {
    const { file } = request.params as { file: string }
    if (!isFile(file)) throw new AppError('not_found', `There is no ${stable}${file}; the browser module is ${stable}media-bff-client.js.`)
    reply.headers({ ...publicCode, 'cache-control': 'no-cache', etag })
    if (request.headers['if-none-match'] === etag) return await reply.code(304).send()
    return await reply.type(FILES[file]).send(files[file])
  })
  app.get('/client/:version/:file', { schema: VERSIONED_SCHEMA, config: { caller: 'anyone' } }, async (request, reply) => {
    const { version: asked, file } = request.params as { version: string, file: string }
    if (asked === version && isFile(file)) {
      return await reply.type(FILES[file]).headers({ ...publicCode, 'cache-control': `public, max-age=${A_YEAR_S}, immutable` }).send(files[file])
    }
    if (VERSION.test(asked) && isFile(file)) {
      // Its own module, not a redirect: a 0.1.0 replica redirects its stable path to a version,
      // and a redirect back could go round between the two. Never cached: once a replica holding
      // that version answers, the page gets it.
      return await reply.type(FILES[file]).headers({ ...publicCode, 'cache-control': 'no-store' }).send(files[file])
    }
    throw new AppError('not_found', `This media-bff serves the browser module as ${stable}media-bff-client.js (and .d.ts), or ${current}media-bff-client.js, not ${stable}${asked}/${file}.`)
  })
}, { name: 'client-module', dependencies: ['config'] })
