// Where media-bff answers on PUBLIC_URL's origin (BASE_PATH) and where the media service sends the
// browser back after consent (OAUTH_REDIRECT_URI), as src/config/config.ts reads them. The two must
// agree: the callback route is registered at the redirect URI's own path, so that path must lie
// under the base path of PUBLIC_URL's origin, or the sign-in would end on another page's 404
// after consent.
import type { DeclaredReader } from './declared-reader.js'

/** The callback's path below the base path when OAUTH_REDIRECT_URI is left to its default. */
export const DEFAULT_CALLBACK_PATH = '/auth/callback'

export interface Mount {
  /** '' (the origin's root) or a path such as /media-bff: every route and URL media-bff hands out starts with it. */
  basePath: string
  redirectUri: string
  /** The callback route's path below the base path, taken from redirectUri. */
  callbackPath: string
}

const PATH = /^(\/[A-Za-z0-9._~-]+)+$/

/** media-bff's own routes and route families: a callback path among them would collide at start. */
const OWN_ROUTES = ['/auth/login', '/auth/logout', '/auth/session', '/auth/sessions', '/auth/check', '/events', '/docs', '/metrics', '/healthz', '/readyz']
const OWN_PREFIXES = ['/api/', '/uploads/', '/client/', '/operator/', '/auth/session/', '/auth/sessions/', '/auth/check/', '/auth/device/', '/webhooks/', '/.well-known/']

/** True when `path` is made of plain segments, none of them `.` or `..`. */
function isPlainPath (path: string): boolean {
  return PATH.test(path) && !path.split('/').some((segment) => segment === '.' || segment === '..')
}

export function readMount (read: DeclaredReader, publicUrl: string, production: boolean): Mount {
  const publicOrigin = new URL(publicUrl).origin
  const publicPath = new URL(publicUrl).pathname
  // A path in PUBLIC_URL used to move the callback alone; BASE_PATH moves everything.
  if (publicPath !== '/') {
    read.problem('PUBLIC_URL', `must be an origin without a path, got the path ${publicPath}; to answer under a path of that origin, set BASE_PATH=${publicPath.replace(/\/+$/, '')}`)
  }

  const setting = read.string('BASE_PATH').replace(/\/+$/, '')
  let basePath = setting
  if (setting !== '' && !isPlainPath(setting)) {
    read.problem('BASE_PATH', `must be empty or a path such as /media-bff (segments of letters, digits, . _ ~ and -), got "${setting}"`)
    basePath = ''
  }

  const defaultUri = `${publicOrigin}${basePath}${DEFAULT_CALLBACK_PATH}`
  const given = read.raw('OAUTH_REDIRECT_URI')
  const redirectUri = read.url('OAUTH_REDIRECT_URI', given) ?? defaultUri
  if (given === undefined || redirectUri === defaultUri) return { basePath, redirectUri, callbackPath: DEFAULT_CALLBACK_PATH }

  const url = new URL(redirectUri)
  // The authorization server sends the code there: over plain http it can be read on the way.
  if (production && url.protocol === 'http:') {
    read.problem('OAUTH_REDIRECT_URI', 'must be https when NODE_ENV=production')
    return { basePath, redirectUri, callbackPath: DEFAULT_CALLBACK_PATH }
  }
  if (url.origin !== publicOrigin) {
    // Off PUBLIC_URL's origin the code lands outside
    // media-bff and its login cookies. Outside production it is the operator's call (a proxy of
    // their own in front), and the callback keeps its default path.
    if (production) read.problem('OAUTH_REDIRECT_URI', `must be on PUBLIC_URL's origin (${publicOrigin}) when NODE_ENV=production`)
    return { basePath, redirectUri, callbackPath: DEFAULT_CALLBACK_PATH }
  }
  const path = url.pathname
  if (!path.startsWith(`${basePath}/`) || !isPlainPath(path)) {
    read.problem('OAUTH_REDIRECT_URI', `${redirectUri} is not under BASE_PATH (${basePath === '' ? 'the origin\'s root' : basePath}); media-bff would never see the sign-in come back. Use ${defaultUri}, or a path under ${basePath === '' ? '/' : `${basePath}/`}`)
    return { basePath, redirectUri, callbackPath: DEFAULT_CALLBACK_PATH }
  }
  const callbackPath = path.slice(basePath.length)
  if (OWN_ROUTES.includes(callbackPath) || OWN_PREFIXES.some((prefix) => callbackPath.startsWith(prefix))) {
    read.problem('OAUTH_REDIRECT_URI', `${redirectUri} is one of media-bff's own routes (${callbackPath}); use ${defaultUri}, or another path`)
    return { basePath, redirectUri, callbackPath: DEFAULT_CALLBACK_PATH }
  }
  return { basePath, redirectUri, callbackPath }
}
