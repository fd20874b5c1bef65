// Security headers for a JSON API that also serves a small demo page. The page posts files
// straight to the media service's upload host, so connect-src allows https (and http only when
// a tenant itself is plain http, as with the local emulator).
import fp from 'fastify-plugin'
import helmet from '@fastify/helmet'

export default fp(async (app) => {
  const httpUpstream = [...app.config.tenants.values()].some((tenant) => tenant.baseUrl.startsWith('http:'))
  const uploadHosts = app.config.upload.allowedHosts.map((host) => `https://${host}`)
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        'default-src': ["'self'"],
        'script-src': ["'self'"],
        'style-src': ["'self'"],
        'img-src': ["'self'", 'data:'],
        'connect-src': ["'self'", ...(uploadHosts.length > 0 ? uploadHosts : ['https:']), ...(httpUpstream ? ['http:'] : [])],
        'form-action': ["'self'"],
        'frame-ancestors': ["'none'"],
        'base-uri': ["'none'"],
        'object-src': ["'none'"]
      }
    },
    // HSTS only means something over https.
    strictTransportSecurity: app.config.session.secureCookie ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    crossOriginResourcePolicy: { policy: 'same-origin' },
    referrerPolicy: { policy: 'same-origin' }
  })
}, { name: 'security-headers', dependencies: ['config'] })
