// GET /docs: the OpenAPI description of the JSON API, generated from the route schemas. Like
// /metrics, only for operators when METRICS_TOKEN is set.
import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'

export default fp(async (app) => {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'media-bff',
        version: '0.1.0',
        description: 'Backend-for-frontend for direct uploads to the media service, and its API relayed at /api/. Every state-changing call needs the header X-CSRF: 1 and a session cookie; errors are { error, message, ...details }.'
      },
      tags: [{ name: 'auth' }, { name: 'uploads' }, { name: 'api', description: 'The relay: allowlisted media service operations, called with the user\'s token' }, { name: 'operations' }]
    }
  })
  app.get('/docs', { schema: { hide: true }, config: { operators: 'metrics' } }, async () => app.swagger())
}, { name: 'docs', dependencies: ['config', 'operators'] })
