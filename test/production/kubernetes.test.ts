// There is no cluster where the tests run, so docker/kubernetes/ is rendered here as
// `kubectl apply -k` renders it (kubectl kustomize): the base, each component and overlay, the
// Gateway of gateway/ and the deployment guide's own overlay (docs/guide/deploy.md). The rendered
// objects are held to what they promise: routes for browsers and none for operators, timeouts the
// live channel survives, probes on routes media-bff has, scraping with the token the pods read,
// autoscaling that drains slowly, spread over zones and nodes, egress only where media-bff goes,
// one Secret per secret read as a file, only variables the configuration reads. Then Redis is
// started with the component's own settings and start script, and media-bff with exactly the
// environment the Deployment gives it (secret files written here), and both answer.
import { spawn } from 'node:child_process'
import { isDeepStrictEqual } from 'node:util'
import { connect } from 'node:net'
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import t from 'tap'
import { parse } from 'yaml'
import { FILE_VARIABLES, loadConfig, SECRET_VARIABLES, type Config } from '../../src/config/config.js'
import { grafanaDashboard, prometheusRule } from '../../src/kubernetes-monitoring.js'
import { SHUTDOWN_GRACE_MS } from '../../src/server-options.js'
import { startBffProcess } from '../helpers/processes.js'
import { freePort, waitForPort } from '../helpers/ports.js'
import { requireProgram } from '../helpers/programs.js'
import { testAssertionKey } from '../helpers/secrets.js'
import { IDENTITY_HEADERS } from '../../src/auth-check/identity-headers.js'
import { dockerDir, parseDockerfile, repoRoot } from './deployment-files.js'
import {
  baseDir, containerEnv, durationMs, kubernetesDir, only, render, routeMatches, selects,
  type Container, type DeploymentSpec, type HTTPRouteSpec, type IngressSpec, type Manifest,
  type NetworkPolicySpec, type PodSpec, type Volume
} from './kubernetes-manifests.js'

/** The base with every component, as the deployment guide's overlay has it. */
async function renderWith (...components: string[]): Promise<Manifest[]> {
  const dir = await mkdtemp(join(tmpdir(), 'media-bff-k8s-with-'))
  try {
    await symlink(kubernetesDir, join(dir, 'kubernetes'), 'dir')
    await mkdir(join(dir, 'overlay'))
    await writeFile(join(dir, 'overlay', 'kustomization.yaml'), [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      'resources: [../kubernetes/base]',
      `components: [${components.map((name) => `../kubernetes/components/${name}`).join(', ')}]`
    ].join('\n'))
    return await render(join(dir, 'overlay'))
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

const manifests = await render(baseDir)
const full = await renderWith('redis', 'prometheus-operator')
const deployment = only<DeploymentSpec>(manifests, 'Deployment')
const pod = deployment.spec.template
const container = pod.spec.containers[0] as Container
const route = only<HTTPRouteSpec>(manifests, 'HTTPRoute')
const guide = await readFile(join(repoRoot, 'docs', 'guide', 'deploy.md'), 'utf8')

const secretsVolume = (spec: PodSpec): Volume | undefined => spec.volumes?.find((volume) => volume.projected !== undefined || volume.secret !== undefined)
/** Each Secret a pod mounts: its name, its keys, and the file each key becomes. */
function mountedSecrets (spec: PodSpec): Array<{ name: string, key: string, path: string }> {
  const volume = secretsVolume(spec)
  if (volume?.secret !== undefined) return (volume.secret.items ?? []).map((item) => ({ name: volume.secret?.secretName ?? '', ...item }))
  return (volume?.projected?.sources ?? []).flatMap((source) => (source.secret?.items ?? []).map((item) => ({ name: source.secret?.name ?? '', ...item })))
}

/** Values for the Secrets, as an operator would make them. */
const secretValues: Record<string, string> = {
  SESSION_SECRETS: randomBytes(32).toString('base64'),
  TOKEN_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  OAUTH_CLIENT_SECRET: randomBytes(16).toString('hex'),
  METRICS_TOKEN: randomBytes(32).toString('base64'),
  OPERATOR_TOKEN: randomBytes(32).toString('base64'),
  REDIS_PASSWORD: randomBytes(32).toString('hex'),
  ASSERTION_KEYS: testAssertionKey('a1')
}
const secretDir = await mkdtemp(join(tmpdir(), 'media-bff-k8s-secrets-'))
t.teardown(async () => { await rm(secretDir, { recursive: true, force: true }) })
const fullDeployment = only<DeploymentSpec>(full, 'Deployment')
const fullContainer = fullDeployment.spec.template.spec.containers[0] as Container
const secretMount = fullContainer.volumeMounts?.find((mount) => mount.name === secretsVolume(fullDeployment.spec.template.spec)?.name)
for (const { key, path } of mountedSecrets(fullDeployment.spec.template.spec)) {
  // As the kubelet writes a Secret created with --from-literal: the value alone, no newline.
  await writeFile(join(secretDir, path), secretValues[key] ?? '')
}
const files = { mountPath: secretMount?.mountPath ?? '', dir: secretDir }
const env = containerEnv(manifests, container, files)
const fullEnv = containerEnv(full, fullContainer, files)

/** loadConfig on `env`, with the names of every variable it read. */
function loadRecordingReads (source: Record<string, string>): { config: Config, read: Set<string> } {
  const read = new Set<string>()
  const watched = new Proxy(source, {
    get: (target, name) => {
      if (typeof name === 'string') read.add(name)
      return target[name as string]
    }
  })
  return { config: loadConfig(watched), read }
}

t.test('the base renders the workload, its autoscaler, its route and its network, and no secret', async (t) => {
  t.same(manifests.map((manifest) => manifest.kind).sort(), ['ConfigMap', 'Deployment', 'HTTPRoute', 'HorizontalPodAutoscaler', 'NetworkPolicy', 'PodDisruptionBudget', 'Service'])
  t.notOk(full.some((manifest) => manifest.kind === 'Secret'), 'the Secrets are the operator\'s to create, with the components too')
  t.equal(container.image, 'media-bff', 'the image is the placeholder the deployment guide tells how to set')
  t.equal(deployment.spec.replicas, undefined, 'no replica count: the autoscaler owns it, and `kubectl apply` would reset it')
  t.same(deployment.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } }, 'a rollout never has fewer ready pods than replicas')
  t.ok(container.resources?.requests?.cpu !== undefined && container.resources.requests.memory !== undefined, 'CPU and memory requested')
  t.ok(container.resources?.limits?.cpu !== undefined && container.resources.limits.memory !== undefined, 'and limited')
})

t.test('the pod runs as the image\'s unprivileged user, read-only, with nothing it does not need', async (t) => {
  const runtime = parseDockerfile(await readFile(join(dockerDir, 'Dockerfile'), 'utf8')).at(-1)
  t.match(runtime?.image, /^node:/, 'the image is built on an official node image...')
  t.equal(runtime?.all('USER').at(-1)?.args, 'node', '...and runs as its node user...')
  t.equal(pod.spec.securityContext?.runAsUser, 1000, '...whose uid in those images the pod names')
  t.match(pod.spec.securityContext, { runAsNonRoot: true, runAsGroup: 1000, fsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } })
  t.same(container.securityContext, { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } })
  t.same(pod.spec.volumes?.map((volume) => Object.keys(volume).filter((key) => key !== 'name')), [['projected']], 'no volume to write to: media-bff writes no file')
  t.same(container.volumeMounts?.map((mount) => mount.readOnly), [true])
  t.equal(pod.spec.automountServiceAccountToken, false, 'no Kubernetes API token in the pod')
})

t.test('every variable the Deployment sets is one media-bff reads, and together they pass the production check', async (t) => {
  for (const [name, source] of [['base', env], ['base with its components', fullEnv]] as const) {
    const { config, read } = loadRecordingReads(source)
    const set = Object.keys(source)
    t.ok(set.length >= 10, `${name}: the Deployment sets ${set.join(', ')}`)
    t.same(set.filter((variable) => !read.has(variable)), [], `${name}: none that loadConfig never reads`)
    t.equal(source.NODE_ENV, 'production', 'with the production check on')
    t.match(config.publicUrl, /^https:\/\//)
    t.equal(new URL(config.redisUrl ?? '').hostname, 'redis', 'REDIS_URL names the redis Service')
    t.same(config.session.secrets, [secretValues.SESSION_SECRETS], 'the secrets come from the files')
    t.equal(config.operatorToken, secretValues.OPERATOR_TOKEN)
    const port = container.ports?.find((candidate) => candidate.name === 'http')
    t.equal(port?.containerPort, config.port, 'the container port is the one media-bff listens on')
  }
  t.equal(new URL(loadConfig(fullEnv).redisUrl ?? '').password, secretValues.REDIS_PASSWORD, 'components/redis gives the replicas Redis\'s password from its Secret')
})

t.test('one Secret per secret, of one key named as its variable, read as a file through NAME_FILE, never in the environment', async (t) => {
  const volume = secretsVolume(fullDeployment.spec.template.spec)
  t.ok(secretMount?.mountPath.startsWith('/run/secrets/'), `mounted at ${secretMount?.mountPath ?? 'nowhere'}`)
  const mode = volume?.projected?.defaultMode ?? 0o644
  t.equal(mode & 0o077, 0o040, 'the files are readable by the pod\'s group (fsGroup) and nobody else')
  const mounted = mountedSecrets(fullDeployment.spec.template.spec)
  t.same(mounted.map(({ name }) => name), [...new Set(mounted.map(({ name }) => name))], 'each Secret once')
  for (const { name, key, path } of mounted) {
    t.equal(name, `media-bff-${key.toLowerCase().replaceAll('_', '-')}`, `${key}: its own Secret, named after it`)
    t.equal(path, key, `${key}: its file named as its variable`)
  }
  const declared = containerEnv(full, fullContainer)
  t.same(Object.keys(declared).filter((name) => SECRET_VARIABLES.includes(name)), [], 'no secret is a variable of its own')
  t.notOk(fullContainer.env?.some((variable) => variable.valueFrom !== undefined) ?? false, 'nor taken from a Secret into the environment')
  t.same(fullContainer.envFrom?.filter((source) => source.secretRef !== undefined), [])
  const byFile = Object.entries(declared).filter(([name]) => name.endsWith('_FILE'))
  t.same(byFile.map(([name]) => name.slice(0, -'_FILE'.length)).filter((name) => !FILE_VARIABLES.includes(name)), [], 'every _FILE is one media-bff knows')
  t.same(byFile.map(([name, path]) => `${name.slice(0, -'_FILE'.length)} ${path}`).sort(), mounted.map(({ key, path }) => `${key} ${secretMount?.mountPath ?? ''}/${path}`).sort(), 'every file mounted is read, and every one read is mounted')
})

t.test('the Service, the PodDisruptionBudget, the autoscaler and the spread find the pods', async (t) => {
  const labels = pod.metadata.labels
  t.ok(selects(deployment.spec.selector.matchLabels, labels), 'the Deployment owns its pods')
  const service = only<{ selector: Record<string, string>, ports: Array<{ name: string, port: number, targetPort: string | number }> }>(manifests, 'Service')
  t.ok(selects(service.spec.selector, labels), 'the Service selects the pods')
  const [servicePort] = service.spec.ports
  t.equal(servicePort?.targetPort, container.ports?.[0]?.name, 'and sends to the container\'s port')

  const autoscaler = only<{ scaleTargetRef: { kind: string, name: string }, minReplicas: number, maxReplicas: number, metrics: Array<{ type: string, resource?: { name: string, target: { type: string, averageUtilization?: number } } }>, behavior: { scaleDown: { stabilizationWindowSeconds: number, policies: Array<{ type: string, value: number, periodSeconds: number }> } } }>(manifests, 'HorizontalPodAutoscaler')
  t.same(autoscaler.spec.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name }, 'the autoscaler scales the Deployment')
  t.ok(autoscaler.spec.minReplicas >= 2, `at least ${autoscaler.spec.minReplicas} replicas: one serves while another is replaced`)
  t.ok(autoscaler.spec.maxReplicas > autoscaler.spec.minReplicas)
  t.same(autoscaler.spec.metrics.map((metric) => [metric.type, metric.resource?.name, metric.resource?.target.type]), [['Resource', 'cpu', 'Utilization']], 'on CPU, of what the pods request')
  t.ok(container.resources?.requests?.cpu !== undefined, 'which they do')
  const { scaleDown } = autoscaler.spec.behavior
  t.ok(scaleDown.stabilizationWindowSeconds >= 300, `scale-down after ${scaleDown.stabilizationWindowSeconds} s of calm`)
  t.same(scaleDown.policies.map((policy) => [policy.type, policy.value]), [['Pods', 1]], 'one pod at a time...')
  t.ok((scaleDown.policies[0]?.periodSeconds ?? 0) >= 60, '...a minute or more apart: the live channels of one pod move before the next goes')

  const spread = pod.spec.topologySpreadConstraints ?? []
  t.same(spread.map((constraint) => constraint.topologyKey), ['topology.kubernetes.io/zone', 'kubernetes.io/hostname'], 'spread across zones, then nodes')
  for (const constraint of spread) {
    t.ok(selects(constraint.labelSelector.matchLabels, labels), `${constraint.topologyKey}: counts these pods`)
    t.equal(constraint.whenUnsatisfiable, 'ScheduleAnyway', `${constraint.topologyKey}: a cluster of one zone or node still runs them all`)
  }

  const budget = only<{ selector: { matchLabels: Record<string, string> }, maxUnavailable?: number }>(manifests, 'PodDisruptionBudget')
  t.ok(selects(budget.spec.selector.matchLabels, labels), 'the PodDisruptionBudget selects the pods')
  t.equal(budget.spec.maxUnavailable, 1, 'a drain moves one pod at a time, and can always move one')
})

/** The paths media-bff serves to browsers and the service, and those only operators reach. */
const PUBLIC_PATHS = ['/auth/login', '/auth/callback', '/auth/session', '/auth/sessions/abc', '/api/folders/0/contents', '/uploads/register', '/events', '/client/media-bff-client.js', '/webhooks/media', '/webhooks/media/other']
const OPERATOR_PATHS = ['/operator/users/default/someone/sessions', '/metrics', '/docs', '/healthz', '/readyz', '/', '/eventsx', '/authz']

/** The rule of the route that takes this path, if any. */
const ruleFor = (spec: HTTPRouteSpec, path: string): HTTPRouteSpec['rules'][number] | undefined =>
  spec.rules.find((rule) => rule.matches?.some((match) => match.path !== undefined && routeMatches(match.path, path)))

t.test('the HTTPRoute publishes the browsers\' and the webhooks\' paths on PUBLIC_URL\'s host, never the operators\'', async (t) => {
  const config = loadConfig(env)
  t.same(route.spec.hostnames, [new URL(config.publicUrl).hostname], 'PUBLIC_URL\'s host')
  for (const path of PUBLIC_PATHS) t.ok(ruleFor(route.spec, path), `${path} is routed`)
  for (const path of OPERATOR_PATHS) t.notOk(ruleFor(route.spec, path), `${path} is not`)
  t.ok(routeMatches({ type: 'PathPrefix', value: '/auth' }, '/auth/x') && !routeMatches({ type: 'PathPrefix', value: '/auth' }, '/authx'), 'the matcher itself tells a segment from a prefix')
  const service = only<{ ports: Array<{ port: number }> }>(manifests, 'Service')
  t.same([...new Set(route.spec.rules.flatMap((rule) => rule.backendRefs?.map((backend) => `${backend.name}:${backend.port}`) ?? []))], [`${service.metadata.name}:${service.spec.ports[0]?.port ?? 0}`], 'every rule sends to the Service')
  t.same(route.spec.parentRefs.map((parent) => parent.sectionName), ['https'], 'on the Gateway\'s https listener only')

  const removesTrace = [{ type: 'RequestHeaderModifier', requestHeaderModifier: { remove: ['traceparent', 'tracestate', 'baggage'] } }]
  t.ok(route.spec.rules.every((rule) => isDeepStrictEqual(rule.filters, removesTrace)), 'every rule removes a client\'s trace context: media-bff believes the Gateway\'s')
  const events = ruleFor(route.spec, '/events')
  t.equal(events?.timeouts?.request, '0s', 'the live channel has no request timeout (a gateway\'s default would cut it)')
  for (const path of PUBLIC_PATHS.filter((candidate) => candidate !== '/events')) {
    const timeout = durationMs(ruleFor(route.spec, path)?.timeouts?.request ?? '0s')
    t.ok(timeout > 3 * config.upstreamTimeoutMs, `${path}: ${timeout} ms, past media-bff's own deadline, which answers first`)
  }
})

t.test('the NetworkPolicies: in only from the Gateway\'s proxies (and Prometheus), out only to DNS, the media service, Redis and a collector', async (t) => {
  const labels = pod.metadata.labels
  const policies = full.filter((manifest) => manifest.kind === 'NetworkPolicy') as Array<Manifest & { spec: NetworkPolicySpec }>
  const ours = policies.filter((policy) => selects(policy.spec.podSelector.matchLabels, labels))
  const main = only<NetworkPolicySpec>(manifests, 'NetworkPolicy')
  t.same(main.spec.policyTypes, ['Ingress', 'Egress'], 'the base limits both ways')
  const port = container.ports?.[0]?.name
  t.same(ours.flatMap((policy) => policy.spec.ingress ?? []).map((rule) => [rule.from.map((peer) => peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name']), rule.ports.map((p) => p.port)]), [
    [['envoy-gateway-system'], [port]],
    [['monitoring'], [port]]
  ], 'in: Envoy Gateway\'s namespace, and Prometheus\'s with the Prometheus Operator component')
  t.match(main.spec.ingress?.[0]?.from[0]?.podSelector?.matchLabels, { 'app.kubernetes.io/component': 'proxy' }, 'and there only its proxies')

  const egress = ours.flatMap((policy) => policy.spec.egress ?? [])
  const reaches = (port: number, peer: (candidate: NonNullable<NetworkPolicySpec['egress']>[number]['to'][number]) => boolean): boolean =>
    egress.some((rule) => rule.ports.some((p) => p.port === port) && rule.to.some(peer))
  t.ok(reaches(53, (peer) => peer.podSelector?.matchLabels['k8s-app'] === 'kube-dns'), 'DNS')
  const internet = egress.find((rule) => rule.to.some((peer) => peer.ipBlock !== undefined))
  t.same(internet?.ports, [{ port: 443, protocol: 'TCP' }], 'the media service: https only...')
  t.same(internet?.to[0]?.ipBlock?.except?.slice(0, 3), ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'], '...and not to the private ranges the cluster lives in')
  t.ok(reaches(6379, (peer) => peer.podSelector?.matchLabels['app.kubernetes.io/name'] === 'redis'), 'Redis, with its component')
  t.ok(reaches(4318, (peer) => peer.podSelector?.matchLabels['app.kubernetes.io/name'] === 'opentelemetry-collector'), 'an OpenTelemetry collector')
  t.equal(egress.length, 4, 'and nothing else')
  const redisPolicy = policies.find((policy) => policy.metadata.name === 'redis')
  t.same(redisPolicy?.spec.ingress?.[0]?.from, [{ podSelector: { matchLabels: labels } }], 'Redis answers media-bff\'s pods only')
  t.same(redisPolicy?.spec.egress, [], 'and reaches nothing')
})

t.test('the kubelet waits longer than a stopping pod takes', async (t) => {
  const preStop = container.lifecycle?.preStop?.exec?.command ?? []
  t.equal(preStop[0], 'sleep', 'a pause before SIGTERM, while the pod leaves the endpoints')
  const pauseMs = Number(preStop[1]) * 1000
  t.ok(pauseMs >= 2000 && pauseMs <= 15_000, `${pauseMs} ms`)
  const graceMs = (pod.spec.terminationGracePeriodSeconds ?? 30) * 1000
  t.ok(graceMs > pauseMs + SHUTDOWN_GRACE_MS, `${graceMs} ms > ${pauseMs} ms of preStop + ${SHUTDOWN_GRACE_MS} ms of media-bff's own grace`)
})

t.test('the Ingress overlay: the same paths on an Ingress instead of the HTTPRoute, with what the live channel needs', async (t) => {
  const overlay = await render(join(kubernetesDir, 'overlays', 'ingress'))
  t.notOk(overlay.some((manifest) => manifest.kind === 'HTTPRoute'), 'no HTTPRoute')
  const ingress = only<IngressSpec>(overlay, 'Ingress')
  const config = loadConfig(env)
  const host = new URL(config.publicUrl).hostname
  t.same(ingress.spec.rules.map((rule) => rule.host), [host], 'the rule is for PUBLIC_URL\'s host')
  t.same(ingress.spec.tls?.flatMap((tls) => tls.hosts), [host], 'with its certificate')
  const paths = ingress.spec.rules[0]?.http.paths ?? []
  const routed = (path: string): boolean => paths.some((candidate) => routeMatches({ type: candidate.pathType === 'Exact' ? 'Exact' : 'PathPrefix', value: candidate.path }, path))
  for (const path of PUBLIC_PATHS) t.ok(routed(path), `${path} is routed`)
  for (const path of OPERATOR_PATHS) t.notOk(routed(path), `${path} is not`)
  const annotation = (name: string): string | undefined => ingress.metadata.annotations?.[`nginx.ingress.kubernetes.io/${name}`]
  t.equal(annotation('force-ssl-redirect'), 'true')
  t.equal(annotation('proxy-buffering'), 'off', 'each event passes as it comes')
  const readTimeoutMs = Number(annotation('proxy-read-timeout')) * 1000
  t.ok(readTimeoutMs > config.events.heartbeatMs, `a live channel outlives the read timeout (${readTimeoutMs} ms) on its heartbeat (${config.events.heartbeatMs} ms)`)
  t.ok(readTimeoutMs > 3 * config.upstreamTimeoutMs, 'and a slow call is answered by media-bff\'s own deadline first')
  t.equal(annotation('proxy-next-upstream'), 'error timeout', 'another pod on a refused connection, never on media-bff\'s own 503')
  const bodyLimit = /^(\d+)k$/.exec(annotation('proxy-body-size') ?? '')
  t.ok(bodyLimit !== null && Number(bodyLimit[1]) * 1024 >= config.bodyLimit, 'the body cap leaves room for BODY_LIMIT')
  const policy = only<NetworkPolicySpec>(overlay, 'NetworkPolicy')
  t.same(policy.spec.ingress?.[0]?.from.map((peer) => peer.namespaceSelector?.matchLabels), [{ 'kubernetes.io/metadata.name': 'ingress-nginx' }], 'ingress-nginx\'s pods let in instead of the Gateway\'s')
})

t.test('gateway/: the Gateway the route attaches to, keeping client addresses and making its own request ids', async (t) => {
  const gateway = await render(join(kubernetesDir, 'gateway'))
  const spec = only<{ gatewayClassName: string, infrastructure: { parametersRef: { kind: string, name: string } }, listeners: Array<{ name: string, protocol: string, port: number, hostname: string, tls?: { certificateRefs: Array<{ name: string }> }, allowedRoutes: { namespaces: { from: string, selector?: { matchLabels: Record<string, string> } } } }> }>(gateway, 'Gateway')
  const [parent] = route.spec.parentRefs
  t.equal(spec.metadata.name, parent?.name, 'the base\'s route names this Gateway...')
  t.equal(spec.metadata.namespace, parent?.namespace, '...in its namespace...')
  const https = spec.spec.listeners.find((listener) => listener.name === parent?.sectionName)
  t.match(https, { protocol: 'HTTPS', port: 443, hostname: route.spec.hostnames[0] }, '...and its https listener, for the route\'s host')
  t.same(https?.allowedRoutes.namespaces, { from: 'Selector', selector: { matchLabels: { 'kubernetes.io/metadata.name': 'media' } } }, 'which takes routes from media-bff\'s namespace only')
  const redirect = gateway.find((manifest) => manifest.kind === 'HTTPRoute') as (Manifest & { spec: HTTPRouteSpec }) | undefined
  t.same(redirect?.spec.rules.map((rule) => rule.filters), [[{ type: 'RequestRedirect', requestRedirect: { scheme: 'https', statusCode: 301 } }]], 'plain http only redirects')
  const policy = only<{ targetRefs: Array<{ kind: string, name: string }>, headers: { requestID: string } }>(gateway, 'ClientTrafficPolicy')
  t.same(policy.spec.targetRefs.map((target) => [target.kind, target.name]), [['Gateway', spec.metadata.name]])
  t.equal(policy.spec.headers.requestID, 'Generate', 'a new X-Request-Id for every request, a client\'s ignored')
  const proxy = only<{ provider: { kubernetes: { envoyService: { externalTrafficPolicy: string } } } }>(gateway, 'EnvoyProxy')
  t.equal(spec.spec.infrastructure.parametersRef.name, proxy.metadata.name, 'the Gateway\'s proxies are set up by the EnvoyProxy...')
  t.equal(proxy.spec.provider.kubernetes.envoyService.externalTrafficPolicy, 'Local', '...whose Service keeps the clients\' own addresses')
  const gatewayClass = only<{ controllerName: string }>(gateway, 'GatewayClass')
  t.equal(spec.spec.gatewayClassName, gatewayClass.metadata.name)
  t.equal(gatewayClass.spec.controllerName, 'gateway.envoyproxy.io/gatewayclass-controller')
  const basePolicy = only<NetworkPolicySpec>(manifests, 'NetworkPolicy')
  t.same(basePolicy.spec.ingress?.[0]?.from[0]?.podSelector?.matchLabels, { 'app.kubernetes.io/managed-by': 'envoy-gateway', 'app.kubernetes.io/component': 'proxy' }, 'the labels Envoy Gateway gives its proxies are the ones the base lets in')
})

t.test('the site-server-auth component: the site\'s editors\' route asked of media-bff first (Envoy Gateway extAuth), its identity headers passed on', async (t) => {
  const rendered = await renderWith('site-server-auth')
  const routes = rendered.filter((manifest) => manifest.kind === 'HTTPRoute') as Array<Manifest & { spec: HTTPRouteSpec }>
  const site = routes.find((manifest) => manifest.metadata.name === 'site-editors')
  t.same(site?.spec.parentRefs, route.spec.parentRefs, 'on the Gateway and listener media-bff\'s own route uses')
  t.same(site?.spec.rules.flatMap((rule) => rule.matches?.map((match) => match.path?.value)), ['/editors'])
  const policy = only<{ targetRefs: Array<{ group: string, kind: string, name: string }>, extAuth: { headersToExtAuth: string[], failOpen: boolean, http: { backendRefs: Array<{ name: string, port: number }>, path: string, headersToBackend: string[] } } }>(rendered, 'SecurityPolicy')
  t.equal(policy.apiVersion, 'gateway.envoyproxy.io/v1alpha1')
  t.same(policy.spec.targetRefs, [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'site-editors' }], 'it guards the site\'s route...')
  t.equal(policy.metadata.namespace, site?.metadata.namespace, '...in the route\'s own namespace, as a policy must be')
  const service = only<{ ports: Array<{ port: number }> }>(rendered, 'Service')
  const [backend] = policy.spec.extAuth.http.backendRefs
  t.equal(backend?.name, service.metadata.name, 'asks media-bff\'s Service...')
  t.ok(service.spec.ports.some((port) => port.port === backend?.port), '...on a port it has')
  t.equal(policy.spec.extAuth.http.path, '/auth/check', 'at the check media-bff answers Envoy\'s ext_authz on (routes/auth-check.ts)')
  t.same(policy.spec.extAuth.headersToExtAuth, ['cookie', 'x-forwarded-proto', 'sec-fetch-site'], 'only the browser\'s cookie, the scheme a sign-in comes back with, and whether another site started the request')
  t.equal(policy.spec.extAuth.failOpen, false, 'media-bff down: nobody let through')
  t.same(policy.spec.extAuth.http.headersToBackend, [...IDENTITY_HEADERS], 'the identity headers a check always answers, each replacing a client\'s')
  const ingress = only<NetworkPolicySpec>(manifests, 'NetworkPolicy').spec.ingress?.[0]?.from[0]?.podSelector?.matchLabels
  t.same(ingress, { 'app.kubernetes.io/managed-by': 'envoy-gateway', 'app.kubernetes.io/component': 'proxy' }, 'the checks come from the Gateway\'s proxies, which media-bff\'s NetworkPolicy lets in')
})

t.test('the Prometheus Operator component: each pod scraped with the token it reads, the rules and the dashboard as written by npm run generate', async (t) => {
  const monitor = only<{ selector: { matchLabels: Record<string, string> }, jobLabel: string, podMetricsEndpoints: Array<{ port: string, path: string, authorization: { type: string, credentials: { name: string, key: string } } }> }>(full, 'PodMonitor')
  t.ok(selects(monitor.spec.selector.matchLabels, pod.metadata.labels), 'it selects the pods')
  t.equal(pod.metadata.labels[monitor.spec.jobLabel], 'media-bff', 'and names the job media-bff, as the alert rules and the dashboard expect')
  const [endpoint] = monitor.spec.podMetricsEndpoints
  t.equal(endpoint?.port, container.ports?.[0]?.name, 'on the container\'s port')
  t.equal(endpoint?.path, '/metrics')
  const metricsSecret = mountedSecrets(fullDeployment.spec.template.spec).find(({ key }) => key === 'METRICS_TOKEN')
  t.same(endpoint?.authorization, { type: 'Bearer', credentials: { name: metricsSecret?.name, key: metricsSecret?.key } }, 'with the Secret the pods read METRICS_TOKEN from')

  const componentDir = join(kubernetesDir, 'components', 'prometheus-operator')
  t.equal(await readFile(join(componentDir, 'prometheus-rule.yaml'), 'utf8'), prometheusRule(), 'prometheus-rule.yaml is what npm run generate writes now')
  t.equal(await readFile(join(componentDir, 'grafana-dashboard.yaml'), 'utf8'), grafanaDashboard(), 'grafana-dashboard.yaml too')
  const rule = only<{ groups: unknown }>(full, 'PrometheusRule')
  t.same(rule.spec.groups, (parse(await readFile(join(dockerDir, 'prometheus', 'alerts.yml'), 'utf8')) as { groups: unknown }).groups, 'the rules are alerts.yml\'s, every one')
  const dashboard = full.find((manifest) => manifest.kind === 'ConfigMap' && manifest.metadata.labels?.grafana_dashboard === '1')
  t.same(JSON.parse(dashboard?.data?.['media-bff.json'] ?? '{}'), JSON.parse(await readFile(join(dockerDir, 'grafana', 'media-bff.json'), 'utf8')), 'the dashboard is docker/grafana/media-bff.json, for Grafana\'s sidecar')
})

t.test('the External Secrets component makes every Secret the pods mount, one key each', async (t) => {
  const external = await render(join(kubernetesDir, 'components', 'external-secrets'))
  const made = external.map((manifest) => {
    const spec = manifest.spec as { target: { name: string }, data: Array<{ secretKey: string }> }
    return { name: spec.target.name, keys: spec.data.map((item) => item.secretKey) }
  })
  const byName = (a: { name: string }, b: { name: string }): number => a.name.localeCompare(b.name)
  t.same(made.sort(byName), mountedSecrets(pod.spec).map(({ name, key }) => ({ name, keys: [key] })).sort(byName), 'the base\'s Secrets, each from its own entry of the store')
  t.ok(external.every((manifest) => manifest.apiVersion === 'external-secrets.io/v1'))
})

/** The rendered StatefulSet's start script run here: its mounts mapped to directories of this machine, Valkey's server to this machine's redis-server on a free loopback port. */
async function startRenderedRedis (rendered: Manifest[], password: string): Promise<{ port: number, conf: string, stop: () => Promise<void> }> {
  const statefulSet = only<{ template: { spec: PodSpec & { containers: Array<Container & { command: string[] }> } } }>(rendered, 'StatefulSet')
  const redisContainer = statefulSet.spec.template.spec.containers[0]
  const conf = only<unknown>(rendered.filter((manifest) => manifest.metadata.name.startsWith('redis')), 'ConfigMap').data?.['redis.conf'] ?? ''
  const root = await mkdtemp(join(tmpdir(), 'media-bff-k8s-redis-'))
  let script = redisContainer?.command[2] ?? ''
  for (const mount of redisContainer?.volumeMounts ?? []) {
    const dir = join(root, mount.name)
    await mkdir(dir, { recursive: true })
    script = script.replaceAll(mount.mountPath, dir)
  }
  await writeFile(join(root, 'config', 'redis.conf'), conf)
  await writeFile(join(root, 'password', 'REDIS_PASSWORD'), password)
  const port = await freePort()
  script = script.replace(/exec valkey-server (\S+)/, `exec ${requireProgram('redis-server')} $1 --port ${port} --bind 127.0.0.1`)
  const child = spawn('sh', ['-c', script], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) child.kill('SIGTERM')
    await exited
    await rm(root, { recursive: true, force: true })
  }
  const ready = await Promise.race([waitForPort(port).then(() => true), exited.then(() => false)])
  if (!ready) {
    await stop()
    throw Object.assign(new Error(`redis exited: ${stderr}`), { stderr })
  }
  return { port, conf, stop }
}

/** What Redis first answers to these bytes, on a connection of no client library (which would authenticate or retry). */
async function rawRedis (port: number, bytes: string): Promise<string> {
  return await new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes))
    socket.once('data', (chunk) => { socket.destroy(); resolve(chunk.toString()) })
    socket.once('error', reject)
  })
}

t.test('components/redis: Redis started with its rendered settings and script, and media-bff with the Deployment\'s environment, serve together', async (t) => {
  const statefulSet = only<{ replicas: number, template: { spec: PodSpec & { containers: Container[] } }, volumeClaimTemplates: Array<{ metadata: { name: string } }> }>(full, 'StatefulSet')
  const redisPod = statefulSet.spec.template.spec
  const redisContainer = redisPod.containers[0] as Container
  t.same(redisContainer.volumeMounts?.find((mount) => mount.mountPath === '/data')?.name, statefulSet.spec.volumeClaimTemplates[0]?.metadata.name, 'its data on a volume of its own')
  t.match(redisPod.securityContext, { runAsNonRoot: true, runAsUser: 999, fsGroup: 999 }, 'as the image\'s valkey user, from the start')
  t.same(redisContainer.securityContext, { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } })
  const redisSecret = mountedSecrets(redisPod)
  t.same(redisSecret, mountedSecrets(fullDeployment.spec.template.spec).filter(({ key }) => key === 'REDIS_PASSWORD'), 'the password from the Secret media-bff reads it from')

  const redis = await startRenderedRedis(full, secretValues.REDIS_PASSWORD ?? '')
  t.teardown(redis.stop)
  const settings = new Map(redis.conf.split('\n').filter((line) => /^\w/.test(line)).map((line) => [line.split(' ')[0], line.slice(line.indexOf(' ') + 1)]))
  t.equal(settings.get('appendonly'), 'yes', 'every write kept: a restart signs nobody out')
  t.equal(settings.get('maxmemory-policy'), 'noeviction', 'sessions are never evicted')
  const maxmemoryMb = Number(/^(\d+)mb$/.exec(settings.get('maxmemory') ?? '')?.[1])
  const limitMi = Number(/^(\d+)Mi$/.exec(redisContainer.resources?.limits?.memory ?? '')?.[1])
  t.ok(maxmemoryMb > 0 && limitMi * 1.048 > maxmemoryMb * 1.5, `maxmemory ${maxmemoryMb} MB, well under the container's ${limitMi} MiB`)
  t.notOk(settings.has('requirepass'), 'no password in the ConfigMap')

  t.match(await rawRedis(redis.port, 'PING\r\n'), /^-NOAUTH/, 'without the password, Redis answers nothing')
  const admin = new Redis({ port: redis.port, host: '127.0.0.1', password: secretValues.REDIS_PASSWORD })
  t.teardown(() => { admin.disconnect() })
  t.same(await admin.config('GET', 'maxmemory-policy'), ['maxmemory-policy', 'noeviction'], 'the running server took the settings')
  t.same(await admin.config('GET', 'appendonly'), ['appendonly', 'yes'])

  // This machine's Redis for the cluster's `redis` Service; HOST and PORT are the helper's.
  const replica = await startBffProcess({ name: 'kubernetes', env: { ...fullEnv, REDIS_URL: `redis://127.0.0.1:${redis.port}` } })
  t.teardown(async () => { await replica.stop('SIGTERM') })
  for (const [probe, expected] of [['startupProbe', { status: 'ok' }], ['livenessProbe', { status: 'ok' }], ['readinessProbe', { status: 'ready', store: 'redis' }]] as const) {
    const path = fullContainer[probe]?.httpGet?.path ?? ''
    t.equal(fullContainer[probe]?.httpGet?.port, fullContainer.ports?.[0]?.name, `${probe}: on the container's port`)
    const answer = await fetch(`${replica.url}${path}`)
    t.equal(answer.status, 200, `${probe}: ${path} answers`)
    t.match(await answer.json(), expected)
  }
  const metrics = async (headers: Record<string, string>): Promise<number> => (await fetch(`${replica.url}/metrics`, { headers })).status
  t.equal(await metrics({}), 404, '/metrics is hidden from anyone without the token...')
  t.equal(await metrics({ authorization: `Bearer ${secretValues.METRICS_TOKEN ?? ''}` }), 200, '...and open to the token the PodMonitor sends')
  const lever = await fetch(`${replica.url}/operator/users/default/someone/sessions`, { method: 'DELETE', headers: { authorization: `Bearer ${secretValues.OPERATOR_TOKEN ?? ''}`, 'x-csrf': '1' } })
  t.equal(lever.status, 200, 'the operators\' lever answers one replica reached directly, over plain http')
  t.same(await lever.json(), { ended: 0 })

  // Every route media-bff describes is either one the HTTPRoute publishes or an operator's.
  const description = await (await fetch(`${replica.url}/docs`, { headers: { authorization: `Bearer ${secretValues.METRICS_TOKEN ?? ''}`, accept: 'application/json' } })).json() as { paths: Record<string, unknown> }
  const described = Object.keys(description.paths).map((path) => path.replace(/\{(\w+)\}/g, '$1'))
  t.ok(described.length > 20, `${described.length} paths described`)
  const unrouted = described.filter((path) => ruleFor(route.spec, path) === undefined)
  t.same(unrouted.filter((path) => !OPERATOR_PATHS.some((operator) => path === operator || path.startsWith('/operator/'))), [], 'every route for browsers is published')
  t.ok(unrouted.some((path) => path.startsWith('/operator/')), 'and the operators\' are not')
  t.notOk(replica.logs().some((line) => Object.values(secretValues).some((value) => JSON.stringify(line).includes(value))), 'no secret in the log')
})

t.test('the Redis script refuses a password redis.conf would misread, naming the Secret', async (t) => {
  await t.rejects(startRenderedRedis(full, 'two words'), /media-bff-redis-password: REDIS_PASSWORD must be letters, digits/)
})

/** The deployment guide's fenced ```yaml blocks whose first line names a file of the overlay (`# site/...`). */
function overlayFiles (): Map<string, string> {
  const found = new Map<string, string>()
  for (const [, block = ''] of guide.matchAll(/```yaml\n(# site\/[\s\S]*?)```/g)) {
    const name = /^# site\/([\w.-]+)/.exec(block)?.[1] ?? ''
    found.set(name, block)
  }
  return found
}

t.test('the deployment guide\'s overlay: the image, the namespace, the settings, the host and the Gateway, with Redis and the Prometheus Operator', async (t) => {
  const overlayText = overlayFiles()
  t.same([...overlayText.keys()].sort(), ['kustomization.yaml', 'route.yaml'])
  // The layout the overlay assumes: site/ beside a checkout of media-bff.
  const root = await mkdtemp(join(tmpdir(), 'media-bff-k8s-overlay-'))
  t.teardown(async () => { await rm(root, { recursive: true, force: true }) })
  await mkdir(join(root, 'media-bff', 'docker'), { recursive: true })
  await symlink(kubernetesDir, join(root, 'media-bff', 'docker', 'kubernetes'), 'dir')
  await mkdir(join(root, 'site'))
  for (const [name, text] of overlayText) await writeFile(join(root, 'site', name), text)
  const overlay: Manifest[] = await render(join(root, 'site'))
  t.same([...new Set(overlay.filter((manifest) => manifest.kind !== 'Namespace').map((manifest) => manifest.metadata.namespace))], ['media'], 'everything in the overlay\'s namespace')
  t.same(overlay.map((manifest) => manifest.kind).sort(), [...full.map((manifest) => manifest.kind)].sort(), 'the base with Redis and the Prometheus Operator')
  const overlayDeployment = only<DeploymentSpec>(overlay, 'Deployment')
  const overlayContainer = overlayDeployment.spec.template.spec.containers[0] as Container
  t.equal(overlayContainer.image, 'registry.example.org/media-bff:0.3.0', 'the image set by `images`')
  const overlayEnv = containerEnv(overlay, overlayContainer, files)
  const config = loadConfig(overlayEnv)
  t.equal(config.publicUrl, 'https://media.example.com', 'the overlay\'s settings...')
  t.equal(overlayEnv.NODE_ENV, 'production', '...merged into the base\'s')
  t.ok(config.redisUrl?.includes(secretValues.REDIS_PASSWORD ?? 'none'), 'with Redis\'s password')
  const overlayRoute = only<HTTPRouteSpec>(overlay, 'HTTPRoute')
  t.same(overlayRoute.spec.hostnames, ['media.example.com'], 'the route on the overlay\'s PUBLIC_URL host...')
  t.same(overlayRoute.spec.parentRefs, [{ name: 'public', namespace: 'gateways', sectionName: 'https' }], '...attached to the overlay\'s Gateway')
})

t.test('the deployment guide\'s Secret commands make every Secret the pods mount, with values media-bff takes', async (t) => {
  // `secret NAME KEY VALUE` lines, each value as the shell makes it: quotes gone, and each
  // `openssl rand` replaced by what it prints.
  const lines = [...guide.matchAll(/^ *secret ([\w-]+) ([A-Z_]+) ('[^']*'|"[^"]*"|\S+)$/gm)]
  t.ok(/^ *secret \(\) \{ kubectl -n media create secret generic "media-bff-\$1" --from-literal="\$2=\$3"; \}$/m.test(guide), 'the guide defines `secret` as one Secret of one key')
  const made = lines.map(([, name = '', key = '', value = '']) => ({
    name: `media-bff-${name}`,
    key,
    value: value.replace(/^(["'])(.*)\1$/, '$2')
      .replace(/\$\(openssl rand -base64 32\)/g, () => randomBytes(32).toString('base64'))
      .replace(/\$\(openssl rand -hex 32\)/g, () => randomBytes(32).toString('hex'))
      .replace(/\$\(openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -outform DER \| base64 -w0\)/g, () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'sec1', format: 'der' }).toString('base64'))
  }))
  t.same(made.map(({ name, key }) => `${name} ${key}`).sort(), mountedSecrets(fullDeployment.spec.template.spec).map(({ name, key }) => `${name} ${key}`).sort(), 'the Secrets of the pods\' volume, no more')
  const settings = Object.fromEntries(Object.entries(containerEnv(full, fullContainer)).filter(([name]) => !name.endsWith('_FILE')))
  const config = loadConfig({ ...settings, ...Object.fromEntries(made.map(({ key, value }) => [key, value])) })
  t.equal(config.tokenKeys[0]?.id, 'k1', 'TOKEN_KEYS: one key, id k1')
  t.equal(config.session.secrets.length, 1)
  t.same(config.assertions.keys.map((key) => [key.id, key.alg]), [['a1', 'ES256']], 'ASSERTION_KEYS: one P-256 key, as openssl writes it')
  const redis = await startRenderedRedis(full, made.find(({ key }) => key === 'REDIS_PASSWORD')?.value ?? '')
  await redis.stop()
  t.pass('the Redis password is one the Redis script takes')
})
