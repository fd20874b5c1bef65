// There is no cluster where the tests run, so docker/kubernetes/ is rendered here as
// `kubectl apply -k` renders it (kubectl kustomize) and held to what it promises: probes on
// routes media-bff has, only variables its configuration reads, secrets only as files, a
// non-root read-only pod, selectors that find the pods, a grace period longer than media-bff's
// own, what the live channel needs at the Ingress. Then media-bff is started with exactly the
// environment the Deployment gives it (secret files written here, Redis a real redis-server)
// and answers its probes; and the overlay and Secret command of the deployment guide
// (docs/guide/deploy.md) are rendered and read.
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { FILE_VARIABLES, loadConfig, SECRET_VARIABLES, type Config } from '../../src/config/config.js'
import { SHUTDOWN_GRACE_MS } from '../../src/server-options.js'
import { startBffProcess } from '../helpers/processes.js'
import { startRedis } from '../helpers/redis.js'
import { dockerDir, parseDockerfile, repoRoot } from './deployment-files.js'
import {
  containerEnv, kubernetesDir, kustomizeTwo, only, render, selects,
  type Container, type DeploymentSpec, type IngressSpec, type Manifest, type NetworkPolicySpec
} from './kubernetes-manifests.js'

const manifests = await render(kubernetesDir)
const deployment = only<DeploymentSpec>(manifests, 'Deployment')
const pod = deployment.spec.template
const container = pod.spec.containers[0] as Container
const ingress = only<IngressSpec>(manifests, 'Ingress')
const secretVolume = pod.spec.volumes?.find((volume) => volume.secret !== undefined)
const secretMount = container.volumeMounts?.find((mount) => mount.name === secretVolume?.name)
const guide = await readFile(join(repoRoot, 'docs', 'guide', 'deploy.md'), 'utf8')

/** Values for the Secret's keys, as an operator would make them. */
const secretValues: Record<string, string> = {
  SESSION_SECRETS: randomBytes(32).toString('base64'),
  TOKEN_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  OAUTH_CLIENT_SECRET: randomBytes(16).toString('hex'),
  METRICS_TOKEN: randomBytes(32).toString('base64'),
  OPERATOR_TOKEN: randomBytes(32).toString('base64')
}
const secretDir = await mkdtemp(join(tmpdir(), 'media-bff-k8s-secrets-'))
t.teardown(async () => { await rm(secretDir, { recursive: true, force: true }) })
for (const { key, path } of secretVolume?.secret?.items ?? []) {
  // As the kubelet writes a Secret created with --from-literal: the value alone, no newline.
  await writeFile(join(secretDir, path), secretValues[key] ?? '')
}
const env = containerEnv(manifests, container, { mountPath: secretMount?.mountPath ?? '', dir: secretDir })

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

t.test('the base renders a workload, its network and its settings, and no secret', async (t) => {
  t.same(manifests.map((manifest) => manifest.kind).sort(), ['ConfigMap', 'Deployment', 'Ingress', 'NetworkPolicy', 'PodDisruptionBudget', 'Service'])
  t.notOk(manifests.some((manifest) => manifest.kind === 'Secret'), 'the Secret is the operator\'s to create')
  t.equal(container.image, 'media-bff', 'the image is the placeholder the deployment guide tells how to set')
  t.ok(deployment.spec.replicas >= 2, `${deployment.spec.replicas} replicas: one serves while another is replaced`)
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
  t.same(pod.spec.volumes?.map((volume) => Object.keys(volume).filter((key) => key !== 'name')), [['secret']], 'no volume to write to: media-bff writes no file')
  t.same(container.volumeMounts?.map((mount) => mount.readOnly), [true])
  t.equal(pod.spec.automountServiceAccountToken, false, 'no Kubernetes API token in the pod')
})

t.test('every variable the Deployment sets is one media-bff reads, and together they pass the production check', async (t) => {
  const { config, read } = loadRecordingReads(env)
  const set = Object.keys(env)
  t.ok(set.length >= 10, `the Deployment sets ${set.join(', ')}`)
  t.same(set.filter((name) => !read.has(name)), [], 'none that loadConfig never reads')
  t.equal(env.NODE_ENV, 'production', 'with the production check on')
  t.match(config.publicUrl, /^https:\/\//)
  t.equal(new URL(config.redisUrl ?? '').hostname, 'redis', 'REDIS_URL names the operator\'s redis Service')
  t.same(config.session.secrets, [secretValues.SESSION_SECRETS], 'the secrets come from the files')
  t.equal(config.operatorToken, secretValues.OPERATOR_TOKEN)
  const port = container.ports?.find((candidate) => candidate.name === 'http')
  t.equal(port?.containerPort, config.port, 'the container port is the one media-bff listens on')
})

t.test('the secrets are files of the Secret, read through NAME_FILE, never in the environment', async (t) => {
  t.equal(secretVolume?.secret?.secretName, 'media-bff')
  t.ok(secretMount?.mountPath.startsWith('/run/secrets/'), `mounted at ${secretMount?.mountPath ?? 'nowhere'}`)
  const mode = secretVolume?.secret?.defaultMode ?? 0o644
  t.equal(mode & 0o077, 0o040, 'the files are readable by the pod\'s group (fsGroup) and nobody else')
  const declared = containerEnv(manifests, container)
  t.same(Object.keys(declared).filter((name) => (SECRET_VARIABLES as readonly string[]).includes(name)), [], 'no secret is a variable of its own')
  t.notOk(container.env?.some((variable) => variable.valueFrom !== undefined) ?? false, 'nor taken from the Secret into the environment')
  t.same(container.envFrom?.filter((source) => source.secretRef !== undefined), [])
  const byFile = Object.entries(declared).filter(([name]) => name.endsWith('_FILE'))
  t.same(byFile.map(([name]) => name.slice(0, -'_FILE'.length)).filter((name) => !(FILE_VARIABLES as readonly string[]).includes(name)), [], 'every _FILE is one media-bff knows')
  const items = new Map(secretVolume?.secret?.items?.map((item) => [item.path, item.key]))
  for (const [name, path] of byFile) {
    const file = /^(.*)\/([^/]+)$/.exec(path)
    t.equal(file?.[1], secretMount?.mountPath, `${name} is a file of the mount`)
    t.equal(items.get(file?.[2] ?? ''), name.slice(0, -'_FILE'.length), `${name}: the Secret's key of that name`)
  }
  for (const required of ['SESSION_SECRETS', 'TOKEN_KEYS', 'OAUTH_CLIENT_SECRET', 'METRICS_TOKEN', 'OPERATOR_TOKEN']) {
    t.ok(`${required}_FILE` in declared, `${required} is read from its file`)
  }
})

t.test('the Service, the PodDisruptionBudget and the NetworkPolicy find the pods; the Service and the Ingress reach the container\'s port', async (t) => {
  const labels = pod.metadata.labels
  t.ok(selects(deployment.spec.selector.matchLabels, labels), 'the Deployment owns its pods')
  const service = only<{ selector: Record<string, string>, ports: Array<{ name: string, port: number, targetPort: string | number }> }>(manifests, 'Service')
  t.ok(selects(service.spec.selector, labels), 'the Service selects the pods')
  const containerPort = container.ports?.[0]
  const [servicePort] = service.spec.ports
  t.ok(servicePort?.targetPort === containerPort?.name || servicePort?.targetPort === containerPort?.containerPort, 'and sends to the container\'s port')

  const budget = only<{ selector: { matchLabels: Record<string, string> }, maxUnavailable?: number, minAvailable?: number }>(manifests, 'PodDisruptionBudget')
  t.ok(selects(budget.spec.selector.matchLabels, labels), 'the PodDisruptionBudget selects the pods')
  const available = budget.spec.minAvailable ?? deployment.spec.replicas - (budget.spec.maxUnavailable ?? 0)
  t.ok(available >= 1 && available < deployment.spec.replicas, `a drain keeps ${available} of ${deployment.spec.replicas} and can still move one`)

  const backends = ingress.spec.rules.flatMap((rule) => rule.http.paths.map((path) => path.backend.service))
  t.same(backends, [{ name: service.metadata.name, port: { name: servicePort?.name } }], 'the Ingress sends to the Service\'s port')

  const policy = only<NetworkPolicySpec>(manifests, 'NetworkPolicy')
  t.ok(selects(policy.spec.podSelector.matchLabels, labels), 'the NetworkPolicy covers the pods')
  t.same(policy.spec.policyTypes, ['Ingress'])
  t.same(policy.spec.ingress, [{
    from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } }, podSelector: { matchLabels: { 'app.kubernetes.io/name': 'ingress-nginx' } } }],
    ports: [{ port: containerPort?.name }]
  }], 'and lets in only ingress-nginx\'s pods, to the container\'s port')
})

t.test('the kubelet waits longer than a stopping pod takes', async (t) => {
  const preStop = container.lifecycle?.preStop?.exec?.command ?? []
  t.equal(preStop[0], 'sleep', 'a pause before SIGTERM, while the pod leaves the endpoints')
  const pauseMs = Number(preStop[1]) * 1000
  t.ok(pauseMs >= 2000 && pauseMs <= 15_000, `${pauseMs} ms`)
  const graceMs = (pod.spec.terminationGracePeriodSeconds ?? 30) * 1000
  t.ok(graceMs > pauseMs + SHUTDOWN_GRACE_MS, `${graceMs} ms > ${pauseMs} ms of preStop + ${SHUTDOWN_GRACE_MS} ms of media-bff's own grace`)
})

t.test('the Ingress: PUBLIC_URL\'s host over https, and what the live channel needs', async (t) => {
  const config = loadConfig(env)
  const host = new URL(config.publicUrl).hostname
  t.same(ingress.spec.rules.map((rule) => rule.host), [host], 'the rule is for PUBLIC_URL\'s host')
  t.same(ingress.spec.tls?.flatMap((tls) => tls.hosts), [host], 'with its certificate')
  t.same(ingress.spec.rules[0]?.http.paths.map((path) => [path.path, path.pathType]), [['/', 'Prefix']], 'every path, /events included')
  const annotation = (name: string): string | undefined => ingress.metadata.annotations?.[`nginx.ingress.kubernetes.io/${name}`]
  t.equal(ingress.spec.ingressClassName, 'nginx')
  t.equal(annotation('force-ssl-redirect'), 'true')
  t.equal(annotation('proxy-buffering'), 'off', 'each event passes as it comes')
  const readTimeoutMs = Number(annotation('proxy-read-timeout')) * 1000
  t.ok(readTimeoutMs > config.events.heartbeatMs, `a live channel outlives the read timeout (${readTimeoutMs} ms) on its heartbeat (${config.events.heartbeatMs} ms)`)
  t.ok(readTimeoutMs > 3 * config.upstreamTimeoutMs, 'and a slow call is answered by media-bff\'s own deadline first')
  t.equal(annotation('proxy-next-upstream'), 'error timeout', 'another pod on a refused connection, never on media-bff\'s own 503')
  const bodyLimit = /^(\d+)k$/.exec(annotation('proxy-body-size') ?? '')
  t.ok(bodyLimit !== null && Number(bodyLimit[1]) * 1024 >= config.bodyLimit, 'the body cap leaves room for BODY_LIMIT')
})

t.test('media-bff started with the Deployment\'s environment passes its production check and answers its probes', async (t) => {
  const redis = await startRedis()
  t.teardown(redis.destroy)
  // This machine's Redis for the cluster's `redis` Service; HOST and PORT are the helper's.
  const replica = await startBffProcess({ name: 'kubernetes', env: { ...env, REDIS_URL: redis.url } })
  t.teardown(async () => { await replica.stop('SIGTERM') })
  for (const [probe, expected] of [['startupProbe', { status: 'ok' }], ['livenessProbe', { status: 'ok' }], ['readinessProbe', { status: 'ready', store: 'redis' }]] as const) {
    const path = container[probe]?.httpGet?.path ?? ''
    t.equal(container[probe]?.httpGet?.port, container.ports?.[0]?.name, `${probe}: on the container's port`)
    const answer = await fetch(`${replica.url}${path}`)
    t.equal(answer.status, 200, `${probe}: ${path} answers`)
    t.match(await answer.json(), expected)
  }
  const metrics = async (headers: Record<string, string>): Promise<number> => (await fetch(`${replica.url}/metrics`, { headers })).status
  t.equal(await metrics({}), 404, '/metrics is hidden from the Ingress\'s callers...')
  t.equal(await metrics({ authorization: `Bearer ${secretValues.METRICS_TOKEN ?? ''}` }), 200, '...and open to the METRICS_TOKEN of the Secret')
  const lever = await fetch(`${replica.url}/operator/users/default/someone/sessions`, { method: 'DELETE', headers: { authorization: `Bearer ${secretValues.OPERATOR_TOKEN ?? ''}`, 'x-csrf': '1' } })
  t.equal(lever.status, 200, 'the operators\' lever answers one replica reached directly, over plain http')
  t.same(await lever.json(), { ended: 0 })
  t.notOk(replica.logs().some((line) => Object.values(secretValues).some((value) => JSON.stringify(line).includes(value))), 'no secret in the log')
})

/** The deployment guide's fenced ```yaml blocks whose first line names a file of the overlay (`# site/...`). */
function overlayFiles (): Map<string, string> {
  const files = new Map<string, string>()
  for (const [, block = ''] of guide.matchAll(/```yaml\n(# site\/[\s\S]*?)```/g)) {
    const name = /^# site\/([\w.-]+)/.exec(block)?.[1] ?? ''
    files.set(name, block)
  }
  return files
}

t.test('the deployment guide\'s overlay sets the image, the namespace, the settings and the host', async (t) => {
  const files = overlayFiles()
  t.same([...files.keys()].sort(), ['ingress-host.yaml', 'kustomization.yaml'])
  // The layout the overlay assumes: site/ beside a checkout of media-bff.
  const root = await mkdtemp(join(tmpdir(), 'media-bff-k8s-overlay-'))
  t.teardown(async () => { await rm(root, { recursive: true, force: true }) })
  await mkdir(join(root, 'media-bff', 'docker'), { recursive: true })
  await symlink(kubernetesDir, join(root, 'media-bff', 'docker', 'kubernetes'), 'dir')
  await mkdir(join(root, 'site'))
  const oldNames = await kustomizeTwo()
  for (const [name, text] of files) {
    // kustomize 2 (kubectl 1.20 and older) reads the same overlay under its older field names.
    const written = oldNames && name === 'kustomization.yaml' ? text.replace(/^resources:/m, 'bases:').replace(/^patches:/m, 'patchesJson6902:') : text
    await writeFile(join(root, 'site', name), written)
  }
  const overlay: Manifest[] = await render(join(root, 'site'))
  t.same(overlay.map((manifest) => manifest.metadata.namespace), overlay.map(() => 'media'), 'everything in the overlay\'s namespace')
  const overlayDeployment = only<DeploymentSpec>(overlay, 'Deployment')
  const overlayContainer = overlayDeployment.spec.template.spec.containers[0] as Container
  t.equal(overlayContainer.image, 'registry.example.org/media-bff:0.1.0', 'the image set by `images`')
  const overlayEnv = containerEnv(overlay, overlayContainer, { mountPath: secretMount?.mountPath ?? '', dir: secretDir })
  const config = loadConfig(overlayEnv)
  t.equal(config.publicUrl, 'https://media.example.com', 'the overlay\'s settings...')
  t.equal(overlayEnv.NODE_ENV, 'production', '...merged into the base\'s')
  t.same(config.trustProxy, ['10.42.0.0/16'])
  const overlayIngress = only<IngressSpec>(overlay, 'Ingress')
  t.same(overlayIngress.spec.rules.map((rule) => rule.host), ['media.example.com'], 'the Ingress on the overlay\'s PUBLIC_URL host')
  t.same(overlayIngress.spec.tls?.flatMap((tls) => tls.hosts), ['media.example.com'])
})

t.test('the deployment guide\'s Secret command makes every key the pods mount, with values media-bff takes', async (t) => {
  const command = /kubectl -n media create secret generic media-bff \\\n((?: +--from-literal=.*\n)+)/.exec(guide)?.[1] ?? ''
  // Each value as the shell makes it: quotes gone, and each `openssl rand -base64 32` replaced
  // by what it prints, 32 random bytes in base64.
  const literals = Object.fromEntries([...command.matchAll(/--from-literal=([A-Z_]+)=('[^']*'|"[^"]*"|\S+)/g)].map(([, key = '', value = '']) => [
    key,
    value.replace(/^(["'])(.*)\1$/, '$2').replace(/\$\(openssl rand -base64 32\)/g, () => randomBytes(32).toString('base64'))
  ]))
  t.same(Object.keys(literals).sort(), secretVolume?.secret?.items?.map((item) => item.key).sort(), 'the keys of the Secret volume, no more')
  const settings = Object.fromEntries(Object.entries(containerEnv(manifests, container)).filter(([name]) => !name.endsWith('_FILE')))
  const config = loadConfig({ ...settings, ...literals })
  t.equal(config.tokenKeys[0]?.id, 'k1', 'TOKEN_KEYS: one key, id k1')
  t.equal(config.session.secrets.length, 1)
})
