// GET /docs: the OpenAPI 3.1 description of media-bff's HTTP API, the very text `npm run openapi`
// writes (docs/reference/http-api.md, "The OpenAPI description"). @fastify/swagger collects it from
// the route definitions as they are registered, each operation's security worked out from the
// guards its route declares (plugins/docs-security.ts). What /docs serves is not this instance's
// own collection but `describe`'s: that of an app built with the canonical configuration
// (src/config/canonical.ts), so the description is the same whatever this instance's environment
// (its tenants, WEBHOOK_PATH, tokens, demo site). Like /metrics, only for operators when
// METRICS_TOKEN is set. A browser that asks for HTML gets a page instead, Redoc rendering the same
// description (public/api-page.html; the bundle is Redoc's own, copied into dist/ by
// `npm run build`).
import fp from 'fastify-plugin'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import type { FastifySchema } from 'fastify'
import swagger from '@fastify/swagger'
import { Type } from '@fastify/type-provider-typebox'
import { version } from '../src/version.js'
import { preferredType } from '../src/preferred-type.js'
import { operationSecurity, securitySchemes } from './docs-security.js'
import { OPERATORS_ONLY, REQUIRED_HEADER, refusals } from '../routes/responses.js'

declare module 'fastify' {
  interface FastifySchema {
    /**
     * The request body as the description shows it, for a route that judges its body itself:
     * Fastify does not validate it, so the route's own refusals keep their answers.
     */
    unvalidatedBody?: unknown
  }
}

export interface DocsOptions {
  /** The canonical description, as the JSON text to serve (src/app.ts, describeApi). */
  describe: () => Promise<string>
  /**
   * The contract's schemas, by name (src/contract/): described once, in components.schemas, and
   * referred to wherever a route's schema holds one (known by its title, which is its name:
   * TypeBox copies a schema it makes optional), so generated clients get named types.
   */
  shared: Readonly<Record<string, object>>
}

export default fp<DocsOptions>(async (app, { describe, shared }) => {
  const sharedNames = new Set(Object.keys(shared))
  const components = Object.fromEntries(Object.entries(shared).map(([name, schema]) => [name, referring(schema, sharedNames, schema) as object]))
  const { basePath } = app.config
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'media-bff',
        version,
        description: 'Backend-for-frontend for direct uploads to the media service, and its API relayed at /api/. A browser holds one session cookie; every request it makes that may change state needs the header X-CSRF: 1; errors are { error, message, ...details }.'
      },
      // The paths are the routes' own, relative to where media-bff answers: one mounted under a
      // path of its site's origin (BASE_PATH) is this server with basePath set, never a prefix
      // of the paths (see the transform; stripBasePath off: the server URL is a template).
      servers: [{
        url: '{origin}{basePath}',
        description: 'media-bff: PUBLIC_URL\'s origin, and the path it is mounted under there',
        variables: {
          origin: { default: app.config.publicOrigin, description: 'PUBLIC_URL\'s origin (scheme, host, port)' },
          basePath: { default: '', description: 'The path media-bff answers under on that origin, such as /media-bff; empty at the root' }
        }
      }],
      components: { schemas: components, securitySchemes: securitySchemes(app.config.session.cookieName) },
      tags: [
        { name: 'auth', description: 'Sign-in, the session, and a person\'s sessions' },
        { name: 'uploads', description: 'Direct uploads: the browser posts the files to the service\'s upload host' },
        { name: 'api', description: 'The relay: allowlisted media service operations, called with the user\'s token' },
        { name: 'events', description: 'The signed-in page\'s live channel' },
        { name: 'webhooks', description: 'The media service\'s webhooks, server to server' },
        { name: 'client', description: 'The browser module, served by media-bff' },
        { name: 'operator', description: 'Operators\' levers' },
        { name: 'operations', description: 'Health, readiness, metrics and this description' }
      ]
    },
    // A header each answer of its status carries is marked so where the route declares it
    // (routes/responses.ts, header()): @fastify/swagger puts all it is given in the header's
    // schema, and `required` belongs to the header.
    transformObject: (document) => requiredHeaders('openapiObject' in document ? document.openapiObject : document.swaggerObject),
    stripBasePath: false,
    // @fastify/swagger reads each route's URL after plugins/base-path.ts has prefixed it: the
    // prefix comes off again here, so an app's paths are the routes' own whatever its BASE_PATH
    // (the canonical app, whose description /docs serves, has none to take off).
    transform: ({ schema, url, route }) => {
      // A route without a schema (none so far) is described as it is.
      const { unvalidatedBody, security: declared, ...described } = schema ?? {}
      const security = operationSecurity(route.config, declared)
      const documented = referring({ ...described, ...(unvalidatedBody === undefined ? {} : { body: unvalidatedBody }) }, sharedNames) as FastifySchema
      return { schema: { ...documented, ...(security === undefined ? {} : { security }) }, url: url.startsWith(`${basePath}/`) ? url.slice(basePath.length) : url }
    }
  })
  app.get('/docs', {
    schema: {
      tags: ['operations'],
      operationId: 'getApiDescription',
      summary: 'This OpenAPI description, the same on every deployment',
      response: {
        200: {
          description: 'This description, an OpenAPI 3.1 document; or, to a browser that asks for HTML, the API reference page rendering it (Redoc, under the page\'s own CSP)',
          content: { 'application/json': { schema: Type.Object({}, { additionalProperties: true }) }, 'text/html': { schema: Type.String() } }
        },
        ...refusals({ own: { 404: [OPERATORS_ONLY] } })
      }
    },
    config: { operators: 'metrics' }
  }, async (request, reply) => {
    reply.header('vary', 'Accept')
    if (preferredType(request.headers.accept, ['application/json', 'text/html']) === 'text/html') {
      return await reply.type('text/html; charset=utf-8').headers(PAGE_HEADERS).send(await page.html())
    }
    return await reply.type('application/json; charset=utf-8').send(await describe())
  })
  app.get('/docs/redoc.standalone.js', { schema: { hide: true }, config: { operators: 'metrics' } }, async (_request, reply) =>
    await reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(await page.script()))
}, { name: 'docs', dependencies: ['config', 'gate'] })

const fromDist = import.meta.url.includes('/dist/')
const pageFile = fileURLToPath(new URL(fromDist ? '../../public/api-page.html' : '../public/api-page.html', import.meta.url))
/** Where `npm run build` (build:api-page) puts Redoc's bundle, seen from plugins/ or dist/plugins/. */
const scriptFile = fileURLToPath(new URL(fromDist ? '../api-page/redoc.standalone.js' : '../dist/api-page/redoc.standalone.js', import.meta.url))

/** Read when first asked for, then kept: most instances never serve the page. */
const page = {
  html: once(async () => await readFile(pageFile, 'utf8')),
  script: once(async () => {
    try {
      return await readFile(scriptFile)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      throw new Error(`${scriptFile} is missing: \`npm run build\` copies Redoc's bundle there`)
    }
  })
}

/**
 * The page's own policy: Redoc's script from here, the styles it writes into the page, the search
 * worker it starts from a blob, and nothing from anywhere else.
 */
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'cache-control': 'no-cache'
}

function once<T> (make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined
  return async () => {
    made ??= make().catch((error: unknown) => {
      made = undefined
      throw error
    })
    return await made
  }
}

/** The document, each response header marked REQUIRED_HEADER in its schema made `required`. */
function requiredHeaders<T> (document: T): T {
  const { paths } = document as { paths?: Record<string, Record<string, { responses?: Record<string, { headers?: Record<string, { required?: boolean, schema?: Record<string, unknown> }> }> }>> }
  for (const operations of Object.values(paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const response of Object.values(operation.responses ?? {})) {
        for (const header of Object.values(response.headers ?? {})) {
          if (header.schema?.[REQUIRED_HEADER] !== true) continue
          delete header.schema[REQUIRED_HEADER]
          header.required = true
        }
      }
    }
  }
  return document
}

/**
 * A copy of a schema in which each shared one it holds (by its title) is a reference to its
 * component; `top`, a component's own schema, stays itself.
 */
function referring (value: unknown, names: ReadonlySet<string>, top?: unknown): unknown {
  if (value === null || typeof value !== 'object') return value
  const title = (value as { title?: unknown }).title
  if (value !== top && typeof title === 'string' && names.has(title)) return { $ref: `#/components/schemas/${title}` }
  if (Array.isArray(value)) return value.map((item) => referring(item, names))
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, referring(item, names)]))
}
