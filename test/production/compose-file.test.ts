// There is no Docker engine where the tests run, so docker/compose.yaml is parsed and checked
// here: the services of the production topology, nginx wired to docker/nginx.conf (the very
// file the native tests run), and the environment of the replicas and the emulator read by their
// own configuration code, so the addresses, client and redirect URI they share agree.
import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import t from 'tap'
import { loadConfig } from '../../src/config/config.js'
import { optionsFromEnv } from '../../emulator/env-options.js'
import { resolveOptions } from '../../emulator/options.js'
import { nginxVersion, productionNginxConf, sameOriginNginxConf, testNginxConf } from '../helpers/nginx.js'
import { dockerDir, parseEnvFile, readComposeFile, repoRoot, serviceEnv, type ComposeService } from './deployment-files.js'

const compose = await readComposeFile()
const nginxConf = await readFile(`${dockerDir}nginx.conf`, 'utf8')
const secretNames = Object.keys(parseEnvFile(await readFile(`${dockerDir}.env.example`, 'utf8')))
const secrets: Record<string, string> = {
  SESSION_SECRETS: randomBytes(32).toString('base64url'),
  TOKEN_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  OAUTH_CLIENT_SECRET: randomBytes(16).toString('hex')
}

const service = (name: string): ComposeService => {
  const found = compose.services[name]
  if (found === undefined) throw new Error(`compose.yaml has no service ${name}`)
  return found
}
const hostPort = (url: string): string => new URL(url).host

t.test('compose.yaml names the services of the production topology', async (t) => {
  t.same(Object.keys(compose.services).sort(), ['certs', 'emulator', 'media-bff-1', 'media-bff-2', 'nginx', 'redis'])
  for (const name of ['media-bff-1', 'media-bff-2', 'emulator']) {
    t.same(service(name).build, { context: '..', dockerfile: 'docker/Dockerfile' }, `${name}: built from the repository root with docker/Dockerfile`)
    t.equal(service(name).image, 'media-bff:local', `${name}: one image for all three`)
  }
  t.same(service('media-bff-1'), service('media-bff-2'), 'the replicas are identical')
  t.same(service('emulator').command, ['node', 'dist/emulator/cli.js'])

  const redis = service('redis')
  t.match(redis.image, /^redis:\d/)
  t.match(redis.command?.join(' '), /--appendonly yes/, 'Redis with AOF')
  t.match(redis.command?.join(' '), /--maxmemory-policy noeviction/, 'and sessions never evicted')
  t.ok(redis.volumes?.some((volume) => /^[\w-]+:\/data$/.test(volume)), 'on a named volume')

  const certs = service('certs')
  const script = certs.command?.join(' ') ?? ''
  t.match(script, /apk add[^\n]*openssl/)
  t.match(script, /-keyout \/certs\/tls\.key -out \/certs\/tls\.crt/, 'a self-signed certificate written into the volume')
  t.same(certs.volumes, ['certs:/certs'])
  t.match(compose.volumes, { certs: null, 'redis-data': null })
})

t.test('compose.yaml: nginx runs docker/nginx.conf, which points at the replicas and the certificate', async (t) => {
  const nginx = service('nginx')
  const [major = 0, minor = 0] = (/^nginx:(\d+)\.(\d+)/.exec(nginx.image ?? '') ?? []).slice(1).map(Number)
  t.ok(major > 1 || (major === 1 && minor >= 28), `${nginx.image ?? ''}: nginx with upstream \`resolve\` (1.27.3+)`)
  t.ok(nginx.volumes?.includes('./nginx.conf:/etc/nginx/nginx.conf:ro'), 'the configuration of this directory')
  t.ok(nginx.volumes?.includes('certs:/etc/nginx/certs:ro'), 'and the certificate volume')
  t.match(nginxConf, /ssl_certificate \/etc\/nginx\/certs\/tls\.crt;/)
  t.match(nginxConf, /ssl_certificate_key \/etc\/nginx\/certs\/tls\.key;/)
  t.same(nginx.depends_on?.certs, { condition: 'service_completed_successfully' }, 'starts once the certificate exists')
  t.same(nginx.ports, ['127.0.0.1:8080:8080', '127.0.0.1:8443:8443'])
  t.match(nginxConf, /return 308 https:\/\/\$host:8443\$request_uri;/, 'the redirect names the published https port')
  t.match(nginxConf, /resolver 127\.0\.0\.11 /, 'Docker\'s DNS')
  const upstreams = [...nginxConf.matchAll(/^\s*server (\S+):(\d+) resolve/gm)].map((match) => ({ host: match[1], port: match[2] }))
  t.same(upstreams, [{ host: 'media-bff-1', port: '3000' }, { host: 'media-bff-2', port: '3000' }], 'the upstream names are the replica services, on the exposed port')

  // The native tests (proxy, restart, shutdown, metrics) run this very file: test/helpers/nginx.ts
  // reads it and changes only what cannot work outside a container. Every other line survives.
  t.equal(productionNginxConf, `${dockerDir}nginx.conf`)
  const adapted = testNginxConf(nginxConf, { upstreams: ['127.0.0.1:1', '127.0.0.1:2'], certFile: 'test.crt', keyFile: 'test.key' }, { dir: 'prefix', httpsPort: 1, httpPort: 2, version: [1, 28, 0], runAsRoot: false })
  const swapped = /^(user|worker_processes|pid|error_log|access_log|resolver|server \S+ resolve|listen|ssl_certificate|ssl_certificate_key|return 308) /
  const kept = nginxConf.split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#') && !swapped.test(line))
  const lines = new Set(adapted.split('\n').map((line) => line.trim()))
  t.same(kept.filter((line) => !lines.has(line)), [], 'the test configuration keeps every other directive of docker/nginx.conf')
  for (const directive of ['client_max_body_size 64k;', 'proxy_next_upstream error timeout;', 'proxy_set_header X-Forwarded-Proto $scheme;']) {
    t.ok(lines.has(directive), directive)
  }
})

t.test('the nginx examples say which nginx they need, and the same-origin one runs on the tests\' nginx as written', async (t) => {
  const production = await readFile(productionNginxConf, 'utf8')
  t.match(production, /^# Needs nginx 1\.27\.3 or later/m, 'docker/nginx.conf names its minimum (`resolve`)')
  const sameOrigin = await readFile(sameOriginNginxConf, 'utf8')
  t.match(sameOrigin, /^# Written for the nginx a distribution ships: 1\.18 or later/m, 'nginx-same-origin.conf names its own')
  t.notMatch(sameOrigin, / resolve[ ;]|^\s*resolver |^\s*http2 on;/m, 'and uses nothing newer')
  // test/browser/same-origin-site.test.ts runs it on this nginx: only addresses, ports and paths
  // change, every other directive is the file's own.
  const version = await nginxVersion()
  const adapted = testNginxConf(sameOrigin, { upstreams: ['127.0.0.1:1'], certFile: 'test.crt', keyFile: 'test.key', siteRoot: 'site' }, { dir: 'prefix', httpsPort: 1, httpPort: 2, version, runAsRoot: false })
  const swapped = /^(user|worker_processes|pid|error_log|access_log|server \S+:\d+|listen|ssl_certificate|ssl_certificate_key|return 308|root) /
  const kept = sameOrigin.split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#') && !swapped.test(line))
  const lines = new Set(adapted.split('\n').map((line) => line.trim()))
  t.same(kept.filter((line) => !lines.has(line)), [], `nginx ${version.join('.')} takes every other directive unchanged`)
  t.ok(adapted.includes('listen 127.0.0.1:1 ssl http2 default_server;'), 'http2 as the file says it')
})

t.test('compose.yaml: the replicas trust only nginx, and their environment is a valid production configuration', async (t) => {
  const replica = service('media-bff-1')
  const env = serviceEnv(replica)
  t.same(replica.env_file, '.env', 'secrets from docker/.env')
  t.same(secretNames.sort(), ['OAUTH_CLIENT_SECRET', 'SESSION_SECRETS', 'TOKEN_KEYS'], 'docker/.env.example names the three secrets')
  for (const name of secretNames) t.notOk(name in env, `${name} is not written in compose.yaml`)
  const rootExample = await readFile(`${repoRoot}.env.example`, 'utf8')
  for (const name of secretNames) t.match(rootExample, new RegExp(`^${name}=`, 'm'), `${name} is described in .env.example`)

  const nginxNetworks = service('nginx').networks as Record<string, { ipv4_address?: string }>
  const [network, { ipv4_address: nginxAddress } = {}] = Object.entries(nginxNetworks)[0] ?? []
  t.equal(env.TRUST_PROXY, nginxAddress, 'TRUST_PROXY is nginx\'s fixed address, nothing more')
  const subnet = compose.networks?.[network ?? '']?.ipam?.config?.[0]?.subnet ?? ''
  t.ok(inSubnet(nginxAddress ?? '', subnet), `${nginxAddress ?? ''} lies in ${subnet}`)
  t.same(replica.networks, [network], 'the replicas are on that network')
  t.same(replica.depends_on, { redis: { condition: 'service_healthy' }, emulator: { condition: 'service_healthy' } })

  const config = loadConfig({ ...env, ...secrets, NODE_ENV: 'production' })
  t.equal(config.publicUrl, 'https://localhost:8443', 'PUBLIC_URL is the published https port')
  t.equal(config.session.secureCookie, true, 'Secure __Host- cookies')
  t.same(config.trustProxy, [nginxAddress])
  t.equal(new URL(config.redisUrl ?? '').hostname, 'redis', 'REDIS_URL names the redis service')
  t.equal(config.redisKeyPrefix, 'media-bff:')
  const tenant = [...config.tenants.values()][0]
  t.equal(tenant?.baseUrl, 'http://emulator:4000', 'the replicas call the emulator by its service name')
  t.equal(tenant?.tokenUrl, 'http://emulator:4000/api/oauth2/token')
  t.equal(tenant?.authorizationUrl, 'http://localhost:4000/api/oauth2/authorize', 'the browser is sent to the published port')
})

t.test('compose.yaml: the emulator agrees with the replicas on client, redirect URI and origins', async (t) => {
  const emulator = service('emulator')
  const env = serviceEnv(emulator, secrets)
  t.throws(() => serviceEnv(emulator, {}), /OAUTH_CLIENT_SECRET/, 'no client secret in docker/.env: compose stops with its name')
  const replicaEnv = serviceEnv(service('media-bff-1'))
  const settings = resolveOptions(optionsFromEnv(env))
  t.equal(settings.host, '0.0.0.0', 'listens on the container network')
  t.equal(settings.clientId, replicaEnv.OAUTH_CLIENT_ID)
  t.equal(settings.clientSecret, secrets.OAUTH_CLIENT_SECRET, 'the secret from docker/.env, the one the replicas send')
  t.equal(settings.redirectUri, `${replicaEnv.PUBLIC_URL ?? ''}/auth/callback`, 'the registered redirect URI is the replicas\' default one')
  t.equal(settings.publicApiOrigin, replicaEnv.MEDIA_BASE_URL, 'finish URLs in its answers are on the origin the replicas reach')
  t.equal(hostPort(settings.publicUploadOrigin ?? ''), replicaEnv.UPLOAD_ALLOWED_HOSTS, 'upload URLs on the one host media-bff hands out')
  t.same(settings.corsOrigins, [replicaEnv.PUBLIC_URL], 'uploads allowed from the site\'s own pages')
  const published = emulator.ports ?? []
  for (const url of [replicaEnv.OAUTH_AUTHORIZATION_URL ?? '', settings.publicUploadOrigin ?? '']) {
    const { hostname, port } = new URL(url)
    t.equal(hostname, 'localhost')
    t.ok(published.includes(`127.0.0.1:${port}:${port}`), `${url}: its port is published for the browser`)
  }
  t.equal(new URL(replicaEnv.MEDIA_BASE_URL ?? '').port, String(settings.apiPort))
  t.match(emulator.healthcheck?.test.join(' '), new RegExp(`127\\.0\\.0\\.1:${settings.apiPort}/`), 'its own health check, not the image\'s (port 3000)')
})

function inSubnet (address: string, cidr: string): boolean {
  const [base = '', bits = '32'] = cidr.split('/')
  const number = (ip: string): number => ip.split('.').reduce((total, octet) => total * 256 + Number(octet), 0)
  const size = 2 ** (32 - Number(bits))
  return Math.floor(number(address) / size) === Math.floor(number(base) / size)
}
