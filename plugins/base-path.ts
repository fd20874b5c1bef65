// Every route answers under BASE_PATH (src/config/mount.ts). Routes are written from media-bff's
// root, and each one's URL is prefixed here as it is registered, so no route can forget it and a
// request outside the base path finds nothing (the contract's 404). request.routeOptions.url keeps
// the template as written (Fastify reads it before onRoute hooks run): metric labels stay the same
// whatever the base path (test/base-path/base-path.test.ts).
import fp from 'fastify-plugin'

export default fp(async (app) => {
  const { basePath } = app.config
  if (basePath === '') return
  app.addHook('onRoute', (route) => {
    // '*' (the CORS preflight of plugins/gate.ts) becomes every path under the base path.
    route.url = route.url.startsWith('/') ? `${basePath}${route.url}` : `${basePath}/${route.url}`
    route.path = route.url
  })
}, { name: 'base-path', dependencies: ['config'] })
