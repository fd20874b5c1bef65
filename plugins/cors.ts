// CORS for front-ends served from another origin listed in ALLOWED_ORIGINS (same site, e.g.
// www.example.org calling media.example.org): credentials allowed, only our methods and the
// X-CSRF header. Any other origin gets no CORS headers, so its browser refuses the preflight
// that X-CSRF forces.
import fp from 'fastify-plugin'
import cors from '@fastify/cors'

export default fp(async (app) => {
  const allowed = new Set(app.config.allowedOrigins)
  await app.register(cors, {
    origin: (origin, callback) => { callback(null, origin !== undefined && allowed.has(origin)) },
    credentials: true,
    methods: ['GET', 'POST', 'PUT', 'DELETE'],
    allowedHeaders: ['content-type', 'x-csrf', 'if-none-match', 'last-event-id'],
    // Not a CORS-safelisted response header: without this, a page on another origin could not
    // read how long a 429 or 503 asks it to wait (the browser module honours it).
    exposedHeaders: ['retry-after'],
    maxAge: 600,
    strictPreflight: true
  })
}, { name: 'cors', dependencies: ['config'] })
