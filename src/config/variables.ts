// Every variable media-bff reads, declared once: its name, type, default, whether it is a secret,
// what it does and an example. The configuration's readers take their defaults and bounds from
// here (src/config/declared-reader.ts: a variable read without its declaration is a programming
// error), and `.env.example` and the docs' configuration reference are written from it
// (src/config/describe.ts, `npm run generate`); test/config/declaration.test.ts fails when either
// file differs from what the declaration makes, or when something is read that is not declared
// or declared that nothing reads.

export type VariableType =
  | 'url' | 'urls' | 'string' | 'secret' | 'secrets' | 'integer' | 'duration' | 'boolean' | 'list'
  | 'choice' | 'path' | 'file' | 'date-time' | 'ratio'

export type VariableGroup =
  | 'Where media-bff lives' | 'The media service' | 'OAuth 2 client' | 'Sessions and secrets'
  | 'Store' | 'Uploads' | 'Limits' | 'Live updates' | 'Your own server' | 'Tracing (OpenTelemetry)' | 'Demo'

export interface Variable {
  name: string
  group: VariableGroup
  type: VariableType
  /** The value when unset, as it would be written in the environment; absent: none. */
  default?: string
  /** For docs, when the default is not one fixed value (it follows another variable). */
  defaultText?: string
  /** Must be set (where no default can stand in). */
  required?: boolean
  /** A secret: may come from NAME_FILE, never printed, never given a value in .env.example. */
  secret?: boolean
  /** May come from the file NAME_FILE names (every secret, and REDIS_URL, which holds a password). */
  fromFile?: boolean
  /** Bounds of an integer, or of a duration in milliseconds. */
  min?: number
  max?: number
  /** The values a choice may take. */
  choices?: readonly string[]
  /** What it does, for people: one paragraph. */
  description: string
  /** A value as a deployment would set it. */
  example?: string
  /**
   * How .env.example shows it: `default`, an active line with its default (so a copy still runs
   * the demo); `blank`, an active empty line to fill in; `example`, a commented line with the
   * example. Default: `default` when there is one, else `example`.
   */
  exampleLine?: 'default' | 'blank' | 'example'
  /** A guide that says more, for the docs: its title and its path under docs/ (with its anchor). */
  guide?: { title: string, path: string }
  /**
   * Read elsewhere than by the configuration's readers: by the OpenTelemetry SDK itself, or
   * before the configuration, to find the file of variables (src/config/env-file.ts).
   */
  readBy?: 'opentelemetry' | 'env-file'
}

const GENERATE_SECRET = 'Generate: `node -e "console.log(require(\'crypto\').randomBytes(32).toString(\'base64url\'))"`'

export const VARIABLES: readonly Variable[] = [
  // --- Where media-bff lives -------------------------------------------------------------------
  { name: 'NODE_ENV', group: 'Where media-bff lives', type: 'string', example: 'production', exampleLine: 'example', description: 'Set to `production` (the image sets it), media-bff refuses at start what only the local demo may do (plain http, a proxy trusting every address, no UPLOAD_ALLOWED_HOSTS...), naming each variable; reads a file of variables only when ENV_FILE names it; and makes a misspelt name in that file an error. Any other value is lenient, as is `npm run serve` without it.' },
  { name: 'ENV_FILE', group: 'Where media-bff lives', type: 'path', readBy: 'env-file', example: '/etc/media-bff/media-bff.env', description: 'A file of variables (the format of .env.example) read under the environment: a variable the environment sets wins. Without it, a .env in the working directory is read, except with NODE_ENV=production, where only the file ENV_FILE names is. Each variable taken from the file is logged by name at start (never its value).', guide: { title: 'How configuration works', path: 'guide/configure.md#from-the-environment-or-a-file' } },
  { name: 'PUBLIC_URL', group: 'Where media-bff lives', type: 'url', required: true, example: 'https://media.example.org', exampleLine: 'example', description: 'The origin browsers use, without a path (one is refused: set BASE_PATH). https in production (required with NODE_ENV=production): the session cookie is then __Host-Http-, Secure. `npm start` sets it to http://localhost:PORT.' },
  { name: 'BASE_PATH', group: 'Where media-bff lives', type: 'path', default: '', description: 'Answer under this path of PUBLIC_URL\'s origin instead of its root (say /media-bff, when the site\'s reverse proxy sends /media-bff/ to media-bff on the site\'s own origin): every route (probes, /metrics and the webhook path included), every URL media-bff hands out and the default OAUTH_REDIRECT_URI move under it. Empty: the root.', example: '/media-bff', guide: { title: 'On the site\'s own origin', path: 'guide/integrate.md#on-the-site-s-own-origin-base-path' } },
  { name: 'HOST', group: 'Where media-bff lives', type: 'string', default: '0.0.0.0', exampleLine: 'example', description: 'The address to listen on: every address by default, as a container needs; `npm start` listens on 127.0.0.1 only unless this says otherwise.' },
  { name: 'PORT', group: 'Where media-bff lives', type: 'integer', default: '3000', min: 0, max: 65535, description: 'The port to listen on (`npm start`: media-bff and its demo site).' },
  { name: 'AUDIT_LOG', group: 'Where media-bff lives', type: 'string', default: 'stdout', example: '/var/log/media-bff/audit.log', description: 'Where the audit events go, one JSON line each (docs/reference/audit-events.md): `stdout`, into the log stream, each marked `"audit": "<event>"`, whatever LOG_LEVEL says, and never dropped before an ordinary line; an absolute path, a file of their own (appended to, created if missing); `off`, nowhere.', guide: { title: 'The audit events', path: 'reference/audit-events.md' } },
  { name: 'LOG_LEVEL', group: 'Where media-bff lives', type: 'choice', default: 'info', choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], description: 'pino\'s level. Tokens, codes, secrets and cookies are never logged.' },
  { name: 'METRICS_TOKEN', group: 'Where media-bff lives', type: 'secret', secret: true, fromFile: true, description: `GET /metrics and GET /docs for operators only: a random string of 32+ characters usable in a Bearer header. Set, they answer only \`Authorization: Bearer <METRICS_TOKEN>\` and look absent (404) to anyone else, and /readyz says why the store cannot be reached only to that token. Unset, anyone who reaches the instance reads them, and production says so at start; \`none\` says that is meant (neither path reachable from outside) and silences it. ${GENERATE_SECRET}`, guide: { title: 'Graceful shutdown, health and metrics', path: 'guide/operate.md#graceful-shutdown-health-and-metrics' } },
  { name: 'OPERATOR_TOKEN', group: 'Where media-bff lives', type: 'secret', secret: true, fromFile: true, description: 'Enables the operators\' lever (DELETE /operator/users/{tenant}/{user_id}/sessions: end every session and grant of one person), which then answers only `Authorization: Bearer <OPERATOR_TOKEN>` and 404 to anyone else. 32+ random characters, not the METRICS_TOKEN. Unset: the route does not exist.', guide: { title: 'Someone left: lock them out', path: 'guide/operate.md#someone-left-lock-them-out' } },
  { name: 'TRUST_PROXY', group: 'Where media-bff lives', type: 'list', example: '10.0.0.0/8', description: 'Comma list of the reverse proxies (addresses, CIDR ranges, or loopback, linklocal, uniquelocal) whose X-Forwarded-*, X-Request-Id and trace context are believed. Unset or `none`: no proxy is trusted, and production says at start what that costs behind a proxy unless it is `none` (clients reach media-bff directly, on purpose). On Kubernetes, the Gateway\'s proxies\' range (docs/guide/deploy.md, "Client addresses and request ids"). Never every address: a /0 is refused everywhere, and in production so are ::ffff:0.0.0.0/96 and ranges adding up to every IPv4 or every public IPv6 address.', guide: { title: 'Reverse proxy and TRUST_PROXY', path: 'guide/deploy.md#reverse-proxy-and-trust-proxy' } },
  { name: 'HSTS_INCLUDE_SUBDOMAINS', group: 'Where media-bff lives', type: 'boolean', default: 'off', description: 'Over https every answer carries Strict-Transport-Security for a year; on adds includeSubDomains, which binds every subdomain of PUBLIC_URL\'s host to https too. Off by default: where media-bff shares the site\'s origin its header speaks for the whole site, whose owners decide that.' },
  { name: 'ALLOWED_ORIGINS', group: 'Where media-bff lives', type: 'urls', defaultText: 'PUBLIC_URL\'s origin', example: 'https://www.example.org', description: 'Further origins (besides PUBLIC_URL\'s) whose pages may call the JSON API with CORS and the session cookie. Each must be the same site as PUBLIC_URL (refused in production, a warning elsewhere), https only in production. `npm start`\'s emulator lets their pages upload too.', guide: { title: 'Which origins can work', path: 'guide/integrate.md#which-origins-can-work' } },
  { name: 'FRAME_ANCESTORS', group: 'Where media-bff lives', type: 'urls', default: '', example: 'https://cms.example.org', description: 'Origins whose pages may show media-bff\'s pages (the demo) and the site\'s pages that use it in a frame, such as a CMS embedding an upload widget; empty (the default): none may. Set, media-bff\'s pages say so (CSP frame-ancestors), and the session cookie becomes SameSite=None and Partitioned (CHIPS), so a frame of each listed site holds a session of its own; a frame signs in and asks for permissions in popups. https PUBLIC_URL only; not with DEVICE_BOUND_SESSIONS.', guide: { title: 'In a frame', path: 'guide/integrate.md#in-a-frame' } },

  // --- The media service -----------------------------------------------------------------------
  { name: 'MEDIA_BASE_URL', group: 'The media service', type: 'url', example: 'https://tenant.media.example', description: 'The one tenant\'s channel URL, without /api (media-bff adds it; a URL ending in /api is refused). Required unless MEDIA_TENANTS is set.' },
  { name: 'MEDIA_TENANTS', group: 'The media service', type: 'list', example: 'north=https://north.media.example,south=https://south.media.example', description: 'Several tenants with the one API client and redirect URI: name=url,... (instead of MEDIA_BASE_URL).' },
  { name: 'MEDIA_DEFAULT_TENANT', group: 'The media service', type: 'string', defaultText: 'the first of MEDIA_TENANTS', example: 'north', description: 'The tenant a sign-in goes to when it names none.' },
  { name: 'ALLOW_INSECURE_UPSTREAM', group: 'The media service', type: 'boolean', defaultText: 'on unless NODE_ENV=production', example: 'off', exampleLine: 'example', description: 'Plain http to the service and its authorization server (a local emulator only).' },
  { name: 'UPSTREAM_TIMEOUT_MS', group: 'The media service', type: 'integer', default: '10000', min: 100, max: 300_000, description: 'Milliseconds media-bff waits for the media service (and its token endpoint); for a relayed call, the deadline of the whole call from sending it to the answer\'s last byte, however slowly the service sends or the browser reads.' },

  // --- OAuth 2 client --------------------------------------------------------------------------
  { name: 'OAUTH_CLIENT_ID', group: 'OAuth 2 client', type: 'string', required: true, exampleLine: 'blank', description: 'The API client id, issued by the media service\'s operator (by e-mail); separate ones for testing, staging and production.' },
  { name: 'OAUTH_CLIENT_SECRET', group: 'OAuth 2 client', type: 'secret', required: true, secret: true, fromFile: true, exampleLine: 'blank', description: 'The API client\'s secret.' },
  { name: 'OAUTH_SCOPES', group: 'OAuth 2 client', type: 'string', default: 'basic user.info', description: 'Scopes (space-separated) asked for at every sign-in; routes ask for more (upload, manage, share) when they need them.' },
  { name: 'OAUTH_AUTHORIZATION_URL', group: 'OAuth 2 client', type: 'url', defaultText: '{base_url}/api/oauth2/authorize', example: '{base_url}/api/oauth2/authorize', description: 'The authorization endpoint; {base_url} is replaced by each tenant\'s URL.' },
  { name: 'OAUTH_TOKEN_URL', group: 'OAuth 2 client', type: 'url', defaultText: '{base_url}/api/oauth2/token', example: '{base_url}/api/oauth2/token', description: 'The token endpoint; {base_url} is replaced by each tenant\'s URL.' },
  { name: 'OAUTH_ISSUER', group: 'OAuth 2 client', type: 'string', defaultText: 'the tenant URL', example: '{base_url}', description: 'RFC 9207: an authorization server that sends `iss` must send exactly this; {base_url} is replaced by each tenant\'s URL. A response without `iss` is taken unless OAUTH_REQUIRE_ISS requires it.' },
  { name: 'OAUTH_REQUIRE_ISS', group: 'OAuth 2 client', type: 'list', defaultText: 'off', example: 'on', description: '`on` (every tenant), `off`, or tenant names: the authorization response must carry `iss`. With several tenants (one client, one redirect URI: a callback cannot tell by its address which authorization server sent it), RFC 9700 asks for it against mix-up attacks: left unset it is refused in production (`off` there is an explicit choice) and each tenant without it is named in a warning at start.' },
  { name: 'OAUTH_TOKEN_AUTH_METHOD', group: 'OAuth 2 client', type: 'choice', default: 'client_secret_post', choices: ['client_secret_post', 'client_secret_basic'], description: 'How the client authenticates at the token endpoint: in the body (as the service\'s SDK does) or by HTTP Basic.' },
  { name: 'OAUTH_REDIRECT_URI', group: 'OAuth 2 client', type: 'url', defaultText: '{PUBLIC_URL}{BASE_PATH}/auth/callback', example: 'https://media.example.org/auth/callback', description: 'The client\'s one registered redirect URI, never taken from request headers; in production https on PUBLIC_URL\'s origin. On that origin the callback route is its path, which must lie under BASE_PATH (refused at start otherwise: the sign-in would end on a 404 after consent).' },
  { name: 'TOKEN_REFRESH_SKEW', group: 'OAuth 2 client', type: 'duration', default: '60', description: 'Refresh an access token this long before it expires (at most half its lifetime).' },
  { name: 'REFRESH_LOCK_LEASE', group: 'OAuth 2 client', type: 'duration', default: '15', description: 'Lease of the lock that makes one instance refresh a grant while the others wait; renewed while the refresh runs, so it only matters when an instance dies mid-refresh.' },

  // --- Sessions and secrets --------------------------------------------------------------------
  { name: 'SESSION_SECRETS', group: 'Sessions and secrets', type: 'secrets', required: true, secret: true, fromFile: true, exampleLine: 'blank', description: `Comma list of random strings of 32+ characters. The first signs the session cookie and the sign-in's state (and binds the relay's cache validators to users); all verify. Rotate by putting a new one first; drop the old one after SESSION_ABSOLUTE_TIMEOUT. ${GENERATE_SECRET}`, guide: { title: 'Rotating SESSION_SECRETS and TOKEN_KEYS', path: 'guide/operate.md#rotating-session-secrets-and-token-keys-without-signing-anyone-out' } },
  { name: 'TOKEN_KEYS', group: 'Sessions and secrets', type: 'secrets', required: true, secret: true, fromFile: true, exampleLine: 'blank', description: 'Comma list of id:base64key with 32-byte keys (AES-256-GCM for tokens and sessions at rest, and the sign-in\'s sealed cookie). The first encrypts; all decrypt. Rotate by putting a new one first. Generate: `node -e "console.log(\'k\' + Date.now() + \':\' + require(\'crypto\').randomBytes(32).toString(\'base64\'))"`', guide: { title: 'Rotating SESSION_SECRETS and TOKEN_KEYS', path: 'guide/operate.md#rotating-session-secrets-and-token-keys-without-signing-anyone-out' } },
  { name: 'SESSION_COOKIE_NAME', group: 'Sessions and secrets', type: 'string', default: 'media-bff', description: 'The session cookie\'s name; __Host-Http- is put in front for an https PUBLIC_URL. The sign-in\'s own cookies are <name>-login-<n>.' },
  { name: 'ROLLING_UPGRADE_FROM_0_1', group: 'Sessions and secrets', type: 'date-time', default: 'off', example: '2026-12-01T18:00:00Z', description: 'Only while replacing 0.1.0 replicas one at a time: the time the rollout ends by (with its zone, at most 7 days ahead; a bare `on` is refused). Until then the session cookie\'s 0.1.0 name (__Host-<name>) is read for the sessions 0.1.0 made (never over a session today\'s name holds, never for one a later version made, and such a session is never sent under today\'s name) and written beside today\'s, and a warning says so at start; from then on, without a restart, it means nothing again (a page\'s script can set that name).', guide: { title: 'Rolling upgrades', path: 'guide/upgrade.md#rolling-upgrades' } },
  { name: 'RECENT_SIGN_IN', group: 'Sessions and secrets', type: 'duration', default: '15m', min: 60_000, max: 86_400_000, description: 'Risky acts (deleting a folder or a file, making a share link, ending other sessions) need a sign-in no older than this, 1 min to 24 h; past it they answer 403 `reauth_required` with a URL that signs in again (asking the service for a fresh login) and comes back.', guide: { title: 'Recent sign-in for risky acts', path: 'guide/security.md#recent-sign-in-for-risky-acts' } },
  { name: 'DEVICE_BOUND_SESSIONS', group: 'Sessions and secrets', type: 'boolean', default: 'off', example: 'on', exampleLine: 'example', description: 'Device-bound sessions (the WICG DBSC protocol, as Chrome ships it): on, a signed-in GET /auth/session offers the browser to bind the session to a key it cannot export; once it has, every signed-in call also needs a short-lived cookie only that key renews, so a copied session cookie is refused elsewhere. Browsers without DBSC work as before.', guide: { title: 'Device-bound sessions', path: 'guide/security.md#device-bound-sessions' } },
  { name: 'DEVICE_BOUND_COOKIE_LIFETIME', group: 'Sessions and secrets', type: 'duration', default: '10m', min: 60_000, max: 3_600_000, description: 'How long a device-bound session\'s short-lived cookie lasts, 1 min to 1 h: the browser renews it with its key before it runs out, and a thief\'s copy is worth at most this long.' },
  { name: 'SESSION_ANOMALY', group: 'Sessions and secrets', type: 'choice', default: 'log', choices: ['log', 'reauth', 'end'], description: 'What a signed-in call from another device or network than the sign-in was (SESSION_ANOMALY_SIGNALS) does: `log`, an audit event `session_anomaly` and nothing else; `reauth`, also 403 `reauth_required` (reason `session_anomaly`) on signed-in calls until the person signs in again; `end`, also the session ends (401 `login_required`).', guide: { title: 'Anomaly signals', path: 'guide/security.md#anomaly-signals' } },
  { name: 'SESSION_ANOMALY_SIGNALS', group: 'Sessions and secrets', type: 'list', default: 'device,network', description: 'What counts as a change, compared with the sign-in: `device` (the browser and system its User-Agent names) and `network` (the address\'s /24, or /48 for IPv6). Comma list; empty for none.' },
  { name: 'SESSION_IDLE_TIMEOUT', group: 'Sessions and secrets', type: 'duration', default: '2h', description: 'A session ends after this long without a request (asking GET /auth/session or listening on /events is not activity).' },
  { name: 'SESSION_ABSOLUTE_TIMEOUT', group: 'Sessions and secrets', type: 'duration', default: '12h', description: 'A session ends after this long in any case; its grant with it.' },
  { name: 'LOGIN_TIMEOUT', group: 'Sessions and secrets', type: 'duration', default: '10m', description: 'How long a started sign-in (and its login cookie) may take at the media service.' },
  { name: 'LOGIN_MAX_PER_BROWSER', group: 'Sessions and secrets', type: 'integer', default: '3', min: 1, max: 3, description: 'Sign-ins one browser may have open at once, 1 to 3: fixed slots, each a sealed cookie of at most 1365 bytes, so whatever its tabs do its login cookies stay within 4 KiB. A new one takes a free slot or the oldest, whose callback then says that sign-in expired.' },

  // --- Store -----------------------------------------------------------------------------------
  { name: 'REDIS_URL', group: 'Store', type: 'url', fromFile: true, example: 'redis://redis:6379', description: 'Unset: everything in memory (one instance), which production names at start unless it is `none` (a single instance, on purpose). Set to share sessions, grants, locks, live updates and webhook follow-ups between instances: redis://, rediss://, redis+sentinel://h1:26379,h2:26379/mymaster, redis+cluster://h1:6379,h2:6379, and rediss+sentinel://, rediss+cluster:// over TLS.', guide: { title: 'Scaling out with Redis', path: 'guide/deploy.md#scaling-out-with-redis' } },
  { name: 'REDIS_PASSWORD', group: 'Store', type: 'secret', secret: true, fromFile: true, description: 'The password Redis asks for (its requirepass, or an ACL user\'s with the user name in REDIS_URL), when it is a secret of its own rather than part of REDIS_URL; put into every connection REDIS_URL makes (Sentinel\'s own password stays sentinelPassword in the URL). Set with a URL that has a password, it is refused.' },
  { name: 'REDIS_KEY_PREFIX', group: 'Store', type: 'string', default: 'media-bff:', description: 'Put before every key, so several deployments can share one Redis (free of {} on a Cluster).' },
  { name: 'MEMORY_MAX_SESSIONS', group: 'Store', type: 'integer', default: '50000', min: 10, max: 10_000_000, description: 'Without REDIS_URL: how many sessions may be signed in at once (every in-memory store is sized from it); a new sign-in beyond is refused (503), nobody is signed out.', guide: { title: 'Sizing the stores', path: 'guide/operate.md#sizing-the-stores' } },
  { name: 'REDIS_TLS_CA_FILE', group: 'Store', type: 'file', example: '/run/secrets/redis-ca.pem', description: 'With a rediss URL whose certificate a private CA signed: a PEM file of that CA\'s certificate(s), trusted instead of the system\'s CAs.' },

  // --- Uploads ---------------------------------------------------------------------------------
  { name: 'UPLOAD_ALLOWED_HOSTS', group: 'Uploads', type: 'list', defaultText: 'any https host; required in production', exampleLine: 'blank', example: 'upload.media.example', description: 'Hosts (host or host:port) url_upload_direct may point at; anything else the service hands out is refused (502).' },
  { name: 'UPLOAD_MAX_FILESIZE', group: 'Uploads', type: 'integer', min: 1, example: '2147483648', description: 'Operator cap on the bytes per file a registration may ask for.' },
  { name: 'UPLOAD_MAX_FILES', group: 'Uploads', type: 'integer', min: 1, example: '50', description: 'Operator cap on the files per registration.' },
  { name: 'UPLOAD_MAX_SIZE', group: 'Uploads', type: 'integer', min: 1, example: '10737418240', description: 'Operator cap on the bytes in total per registration.' },
  { name: 'UPLOAD_FILE_EXTENSIONS', group: 'Uploads', type: 'list', example: 'jpg,png,mp4,mov,pdf', description: 'Operator cap on the file extensions a registration may allow.' },

  // --- Limits ----------------------------------------------------------------------------------
  { name: 'BODY_LIMIT', group: 'Limits', type: 'integer', default: '16384', min: 1024, max: 1_048_576, description: 'The largest JSON body accepted, in bytes.' },
  { name: 'RATE_LIMIT_LOGIN_PER_MINUTE', group: 'Limits', type: 'integer', default: '30', min: 1, description: 'Sign-ins and callbacks per client address per minute (an IPv6 client counts as its /64; behind a proxy the address comes from TRUST_PROXY), counted in each instance\'s memory: nothing an anonymous client sends is written to Redis.' },
  { name: 'RATE_LIMIT_REGISTER_PER_MINUTE', group: 'Limits', type: 'integer', default: '120', min: 1, description: 'Upload registrations per signed-in person per minute; with REDIS_URL counted in Redis, so every instance counts together.' },
  { name: 'RATE_LIMIT_FINISH_PER_MINUTE', group: 'Limits', type: 'integer', default: '120', min: 1, description: 'Upload finishes per signed-in person per minute.' },
  { name: 'RATE_LIMIT_SESSIONS_PER_MINUTE', group: 'Limits', type: 'integer', default: '60', min: 1, description: 'Calls to /auth/sessions (list, end one, end the others) per signed-in person per minute.' },
  { name: 'RATE_LIMIT_API_PER_MINUTE', group: 'Limits', type: 'integer', default: '600', min: 1, description: 'Calls through the relay (/api/...) per signed-in person per minute.' },
  { name: 'RELAY_MAX_IN_FLIGHT_PER_USER', group: 'Limits', type: 'integer', default: '8', min: 1, max: 10_000, description: 'Relayed calls one signed-in person may have running at once on each instance (keyed like the per-person rate limits); more get 429 with Retry-After. Each call lasts at most UPSTREAM_TIMEOUT_MS, so this bounds the upstream connections and relay work one person can hold.' },

  // --- Live updates ----------------------------------------------------------------------------
  { name: 'WEBHOOK_KEYS', group: 'Live updates', type: 'secrets', secret: true, fromFile: true, description: 'The media service\'s webhook keys: `key` for the one (or default) tenant, or `tenant:key,...`; 16+ characters; several keys of one tenant all verify (rotation). Unset: no webhook is taken (the route does not exist), and the live channel carries finishes and session ends only.' },
  { name: 'WEBHOOK_PATH', group: 'Live updates', type: 'path', default: '/webhooks/media', description: 'Where the service posts them: this path for the default tenant, this path/<tenant> for the others; outside /api/ and /auth/.' },
  { name: 'RATE_LIMIT_WEBHOOKS_PER_MINUTE', group: 'Live updates', type: 'integer', default: '600', min: 1, description: 'Webhooks per sending address per minute, counted in each instance\'s memory.' },
  { name: 'WEBHOOK_TAKEOVER_AFTER', group: 'Live updates', type: 'duration', default: '20s', min: 1_000, max: 300_000, description: 'With REDIS_URL: how long a webhook follow-up one instance took may go unfinished (it was killed, or the follow-up failed for now) before any instance takes it over; 1 s to 5 min.' },
  { name: 'EVENTS_MAX_STREAMS', group: 'Live updates', type: 'integer', default: '5000', min: 1, max: 1_000_000, description: 'Live channels (GET /events, one per open tab) one instance holds at most; more get 503 with Retry-After.' },
  { name: 'EVENTS_MAX_PER_PERSON', group: 'Live updates', type: 'integer', default: '20', min: 1, max: 10_000, description: 'Live channels one person (all their sessions) holds on one instance; beyond, their oldest closes, its page told why.' },
  { name: 'EVENTS_HEARTBEAT', group: 'Live updates', type: 'duration', default: '20s', min: 5_000, max: 40_000, description: 'How often an open channel says it is alive, 5 to 40 s: under the read timeout of every proxy on the way.' },
  { name: 'RATE_LIMIT_EVENTS_PER_MINUTE', group: 'Live updates', type: 'integer', default: '120', min: 1, description: 'Live channels opened per signed-in person per minute (reconnects included).' },

  // --- Your own server --------------------------------------------------------------------------
  { name: 'ASSERTION_KEYS', group: 'Your own server', type: 'secrets', secret: true, fromFile: true, description: 'Comma list of id:base64 PKCS#8 private keys, P-256 (ES256) or Ed25519 (EdDSA), that sign the assertion GET /auth/check hands the site\'s own servers. The first signs; GET /.well-known/jwks.json serves every listed key. Rotate by adding a new key second, moving it first once verifiers have fetched the set, and dropping the old one after ASSERTION_LIFETIME. Unset: a key is made at start, so each instance\'s assertions verify only against its own set (production says so at start); `none`: no assertions. Generate one (P-256): `echo "a$(date +%s):$(openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -outform DER | base64 -w0)"`', guide: { title: 'Your own server', path: 'guide/own-server.md#the-keys' } },
  { name: 'ASSERTION_AUDIENCE', group: 'Your own server', type: 'string', default: '', defaultText: 'PUBLIC_URL, with BASE_PATH', example: 'https://www.example.org', description: 'The assertion\'s `aud`: what the site\'s servers check it was made for.' },
  { name: 'ASSERTION_LIFETIME', group: 'Your own server', type: 'duration', default: '2m', min: 30_000, max: 300_000, description: 'How long an assertion holds, 30 s to 5 min (never past the session\'s end). A check hands out a new one once the one it keeps is past half its life.' },
  { name: 'AUTH_CHECK_CACHE', group: 'Your own server', type: 'duration', default: '5s', min: 0, max: 30_000, description: 'How long GET /auth/check keeps a session\'s answer, 0 to 30 s, so a page\'s assets do not each read the store. A session ended meanwhile still passes checks for at most this long. 0: every check reads the store.', guide: { title: 'Your own server', path: 'guide/own-server.md#what-a-check-costs' } },

  // --- Tracing (OpenTelemetry) -----------------------------------------------------------------
  { name: 'OTEL_EXPORTER_OTLP_ENDPOINT', group: 'Tracing (OpenTelemetry)', type: 'url', example: 'http://otel-collector:4318', description: 'An OTLP/HTTP receiver (a collector\'s port 4318; /v1/traces is added): tracing on. Every request, sign-in, refresh, upload, relayed call, webhook and live channel is then a span, calls to the service carry the trace on, and log lines carry trace_id and span_id.', guide: { title: 'Tracing and request ids', path: 'guide/operate.md#tracing-and-request-ids' } },
  { name: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', group: 'Tracing (OpenTelemetry)', type: 'url', example: 'http://otel-collector:4318/v1/traces', description: 'The receiver\'s full URL, used as it is (wins over OTEL_EXPORTER_OTLP_ENDPOINT).' },
  { name: 'OTEL_EXPORTER_OTLP_PROTOCOL', group: 'Tracing (OpenTelemetry)', type: 'choice', default: 'http/protobuf', choices: ['http/protobuf', 'http/json'], exampleLine: 'example', description: 'The wire format; grpc is refused at start.' },
  { name: 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', group: 'Tracing (OpenTelemetry)', type: 'choice', choices: ['http/protobuf', 'http/json'], example: 'http/json', description: 'The same for traces alone (wins over OTEL_EXPORTER_OTLP_PROTOCOL).' },
  { name: 'OTEL_SERVICE_NAME', group: 'Tracing (OpenTelemetry)', type: 'string', default: 'media-bff', exampleLine: 'example', readBy: 'opentelemetry', description: 'The spans\' service.name.' },
  { name: 'OTEL_RESOURCE_ATTRIBUTES', group: 'Tracing (OpenTelemetry)', type: 'list', example: 'deployment.environment.name=production', readBy: 'opentelemetry', description: 'Further resource attributes of the spans, key=value,...' },
  { name: 'OTEL_TRACES_SAMPLER', group: 'Tracing (OpenTelemetry)', type: 'choice', default: 'parentbased_always_on', choices: ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'], exampleLine: 'example', example: 'parentbased_traceidratio', description: 'Which traces are kept. parentbased_* follow the sampling of a trace context from TRUST_PROXY (anyone else\'s is never the parent). Any other name is refused at start.' },
  { name: 'OTEL_TRACES_SAMPLER_ARG', group: 'Tracing (OpenTelemetry)', type: 'ratio', default: '1', exampleLine: 'example', example: '0.1', description: 'With a ratio sampler, the share of traces kept, 0 to 1 (0.1: one in ten).' },
  { name: 'OTEL_TRACES_EXPORTER', group: 'Tracing (OpenTelemetry)', type: 'list', default: 'otlp', exampleLine: 'example', description: '`otlp`, or `none` (off, whatever else is set); any other exporter is refused.' },
  { name: 'OTEL_SDK_DISABLED', group: 'Tracing (OpenTelemetry)', type: 'string', default: 'false', exampleLine: 'example', description: '`true` turns tracing off, whatever else is set.' },
  { name: 'OTEL_BSP_SCHEDULE_DELAY', group: 'Tracing (OpenTelemetry)', type: 'integer', min: 1, max: 10_000_000, defaultText: '5000', example: '5000', description: 'Milliseconds between two exports of the batch of spans.' },
  { name: 'OTEL_BSP_EXPORT_TIMEOUT', group: 'Tracing (OpenTelemetry)', type: 'integer', min: 1, max: 10_000_000, defaultText: '30000', example: '30000', description: 'Milliseconds an export may take.' },
  { name: 'OTEL_BSP_MAX_QUEUE_SIZE', group: 'Tracing (OpenTelemetry)', type: 'integer', min: 1, max: 10_000_000, defaultText: '2048', example: '2048', description: 'Spans waiting to be exported at most; more are dropped.' },
  { name: 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', group: 'Tracing (OpenTelemetry)', type: 'integer', min: 1, max: 10_000_000, defaultText: '512', example: '512', description: 'Spans exported at once at most; not more than OTEL_BSP_MAX_QUEUE_SIZE.' },
  { name: 'OTEL_EXPORTER_OTLP_HEADERS', group: 'Tracing (OpenTelemetry)', type: 'list', example: 'authorization=Bearer%20...', readBy: 'opentelemetry', description: 'Headers sent with every export, key=value,... (URL-encoded values).' },
  { name: 'OTEL_EXPORTER_OTLP_TIMEOUT', group: 'Tracing (OpenTelemetry)', type: 'integer', example: '10000', readBy: 'opentelemetry', description: 'Milliseconds the exporter waits for the receiver.' },
  { name: 'OTEL_EXPORTER_OTLP_COMPRESSION', group: 'Tracing (OpenTelemetry)', type: 'choice', choices: ['gzip', 'none'], example: 'gzip', readBy: 'opentelemetry', description: 'Compression of the exports.' },

  // --- Demo ------------------------------------------------------------------------------------
  { name: 'DEMO_SITE', group: 'Demo', type: 'boolean', default: 'off', description: 'Serve the demo website at {BASE_PATH}/ (always on under `npm start`).' }
]

const byName = new Map(VARIABLES.map((variable) => [variable.name, variable]))

/** The declaration of `name`; throws for a name nobody declared (a programming error). */
export function declared (name: string): Variable {
  const variable = byName.get(name)
  if (variable === undefined) throw new Error(`${name} is read but not declared in src/config/variables.ts`)
  return variable
}

/** Every name media-bff's configuration knows: the variables and the NAME_FILE of those that may come from a file. */
export const KNOWN_NAMES: ReadonlySet<string> = new Set(VARIABLES.flatMap((variable) => variable.fromFile === true ? [variable.name, `${variable.name}_FILE`] : [variable.name]))

/** Variables that may come from a file NAME_FILE names. */
export const FILE_VARIABLES: readonly string[] = VARIABLES.filter((variable) => variable.fromFile === true).map((variable) => variable.name)

/** Variables that hold secrets: each must be the secret itself, not the command that makes one. */
export const SECRET_VARIABLES: readonly string[] = VARIABLES.filter((variable) => variable.secret === true).map((variable) => variable.name)
