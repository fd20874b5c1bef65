// Security headers for a JSON API that also serves a small demo page. The page posts files
// straight to the media service's upload host, so connect-src allows https (and http only when
// a tenant itself is plain http, as with the local emulator).
//
// helmet chooses the headers; they depend only on the configuration, so they are worked out once
// at start-up and copied onto every reply (running helmet per request cost ~7% of a session call).
import fp from 'fastify-plugin'
import helmet, { type HelmetOptions } from 'helmet'
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http'
import type { Config } from '../src/config.js'

export default fp(async (app) => {
  const headers = securityHeaders(helmetOptions(app.config))
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers)
    done()
  })
}, { name: 'security-headers', dependencies: ['config'] })

function helmetOptions (config: Config): HelmetOptions {
  const httpUpstream = [...config.tenants.values()].some((tenant) => tenant.baseUrl.startsWith('http:'))
  const uploadHosts = config.upload.allowedHosts.map((host) => `https://${host}`)
  return {
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
    strictTransportSecurity: config.session.secureCookie ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    crossOriginResourcePolicy: { policy: 'same-origin' },
    referrerPolicy: { policy: 'same-origin' }
  }
}

/** The headers helmet would set, collected from one run against a recording response. */
export function securityHeaders (options: HelmetOptions): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {}
  const recorder = {
    setHeader (name: string, value: string) { headers[name.toLowerCase()] = value },
    removeHeader (name: string) { delete headers[name.toLowerCase()] }
  }
  let ran = false
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, () => { ran = true })
  if (!ran) throw new Error('helmet did not finish synchronously; security headers unknown')
  return headers
}
