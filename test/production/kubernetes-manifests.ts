// docker/kubernetes/ as `kubectl apply -k` sees it: rendered by the machine's kubectl (its
// `kustomize`), parsed, with the fields the tests read typed, and the environment the Deployment
// gives its container worked out the way the kubelet does.
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { parseAllDocuments } from 'yaml'
import { requireProgram } from '../helpers/programs.js'
import { dockerDir } from './deployment-files.js'

export const kubernetesDir = join(dockerDir, 'kubernetes')
export const baseDir = join(kubernetesDir, 'base')

type Labels = Record<string, string>

export interface Manifest {
  apiVersion: string
  kind: string
  metadata: { name: string, namespace?: string, labels?: Labels, annotations?: Labels }
  data?: Record<string, string>
  spec?: unknown
}

export interface Probe { httpGet?: { path: string, port: string | number } }

export interface Container {
  name: string
  image: string
  ports?: Array<{ name?: string, containerPort: number }>
  env?: Array<{ name: string, value?: string, valueFrom?: unknown }>
  envFrom?: Array<{ configMapRef?: { name: string }, secretRef?: { name: string } }>
  volumeMounts?: Array<{ name: string, mountPath: string, readOnly?: boolean }>
  startupProbe?: Probe
  livenessProbe?: Probe
  readinessProbe?: Probe
  lifecycle?: { preStop?: { exec?: { command: string[] } } }
  resources?: { requests?: Record<string, string>, limits?: Record<string, string> }
  securityContext?: { allowPrivilegeEscalation?: boolean, readOnlyRootFilesystem?: boolean, runAsNonRoot?: boolean, runAsUser?: number, capabilities?: { drop?: string[], add?: string[] } }
}

export interface PodSpec {
  automountServiceAccountToken?: boolean
  terminationGracePeriodSeconds?: number
  securityContext?: { runAsNonRoot?: boolean, runAsUser?: number, runAsGroup?: number, fsGroup?: number, seccompProfile?: { type: string } }
  containers: Container[]
  volumes?: Volume[]
  topologySpreadConstraints?: Array<{ maxSkew: number, topologyKey: string, whenUnsatisfiable: string, labelSelector: { matchLabels: Labels }, matchLabelKeys?: string[] }>
}

export interface SecretItems { key: string, path: string }

export interface Volume {
  name: string
  secret?: { secretName: string, defaultMode?: number, items?: SecretItems[] }
  projected?: { defaultMode?: number, sources: Array<{ secret?: { name: string, items?: SecretItems[] } }> }
  configMap?: { name: string }
  emptyDir?: { medium?: string }
}

export interface DeploymentSpec {
  replicas?: number
  selector: { matchLabels: Labels }
  strategy?: { type: string, rollingUpdate?: { maxUnavailable?: number | string, maxSurge?: number | string } }
  template: { metadata: { labels: Labels }, spec: PodSpec }
}

export interface IngressSpec {
  ingressClassName?: string
  tls?: Array<{ hosts: string[], secretName: string }>
  rules: Array<{ host: string, http: { paths: Array<{ path: string, pathType: string, backend: { service: { name: string, port: { name?: string, number?: number } } } }> } }>
}

export interface Peer { namespaceSelector?: { matchLabels?: Labels }, podSelector?: { matchLabels: Labels }, ipBlock?: { cidr: string, except?: string[] } }

export interface NetworkPolicySpec {
  podSelector: { matchLabels: Labels }
  policyTypes: string[]
  ingress?: Array<{ from: Peer[], ports: Array<{ port: string | number, protocol?: string }> }>
  egress?: Array<{ to: Peer[], ports: Array<{ port: string | number, protocol?: string }> }>
}

export interface HTTPRouteSpec {
  parentRefs: Array<{ name: string, namespace?: string, sectionName?: string }>
  hostnames: string[]
  rules: Array<{
    matches?: Array<{ path?: { type: 'Exact' | 'PathPrefix', value: string } }>
    timeouts?: { request?: string, backendRequest?: string }
    backendRefs?: Array<{ name: string, port: number }>
    filters?: unknown[]
  }>
}

/** Whether a Gateway API path match takes this path (PathPrefix matches whole segments). */
export function routeMatches (match: { type: 'Exact' | 'PathPrefix', value: string }, path: string): boolean {
  if (match.type === 'Exact') return path === match.value
  const prefix = match.value.replace(/\/$/, '')
  return prefix === '' || path === prefix || path.startsWith(`${prefix}/`)
}

/** A Gateway API duration (1h2m3s, 500ms, 0s) in milliseconds. */
export function durationMs (duration: string): number {
  let total = 0
  const unitMs: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 }
  for (const [, amount = '0', unit = ''] of duration.matchAll(/(\d+)(ms|h|m|s)/g)) total += Number(amount) * (unitMs[unit] ?? Number.NaN)
  return total
}

const run = promisify(execFile)

/** The kubectl found for the tests: the package of the machine's sources, or Debian's kubernetes-client. */
export const kubectl = requireProgram('kubectl')

/**
 * The components and `patches` of docker/kubernetes/ need the kustomize of kubectl 1.21 or later
 * (Debian's kubernetes-client is 1.20): said once, with what to do, rather than as a kustomize
 * error about an unknown field.
 */
const kustomizeReady = (async () => {
  const { stdout } = await run(kubectl, ['version', '--client', '-o', 'json'])
  const { clientVersion } = JSON.parse(stdout) as { clientVersion: { major: string, minor: string } }
  if (Number(clientVersion.major) === 1 && Number.parseInt(clientVersion.minor, 10) < 21) {
    throw new Error(`${kubectl} is kubectl 1.${clientVersion.minor}; docker/kubernetes/ needs 1.21 or later (kustomize components): install Kubernetes's own kubectl package (https://kubernetes.io/docs/tasks/tools/install-kubectl-linux/) and run the tests again`)
  }
})()

export async function render (dir: string): Promise<Manifest[]> {
  await kustomizeReady
  const { stdout } = await run(kubectl, ['kustomize', dir])
  return parseAllDocuments(stdout).map((document) => document.toJS() as Manifest)
}

/** The one manifest of this kind (throws when there is none or several). */
export function only<Spec> (manifests: Manifest[], kind: string): Manifest & { spec: Spec } {
  const found = manifests.filter((manifest) => manifest.kind === kind)
  if (found.length !== 1) throw new Error(`${found.length} ${kind} manifests rendered, not one`)
  return found[0] as Manifest & { spec: Spec }
}

/** Whether a selector's labels all sit on these labels. */
export function selects (selector: Labels, labels: Labels): boolean {
  return Object.entries(selector).length > 0 && Object.entries(selector).every(([name, value]) => labels[name] === value)
}

/**
 * The container's environment as the kubelet makes it: each ConfigMap of envFrom, then env on
 * top. `files` maps the secret volume's mount path to a directory of this machine, for a
 * process started here.
 */
export function containerEnv (manifests: Manifest[], container: Container, files?: { mountPath: string, dir: string }): Record<string, string> {
  const env: Record<string, string> = {}
  for (const source of container.envFrom ?? []) {
    const name = source.configMapRef?.name
    const configMap = manifests.find((manifest) => manifest.kind === 'ConfigMap' && manifest.metadata.name === name)
    if (configMap === undefined) throw new Error(`envFrom names ConfigMap ${String(name)}, which the base does not render`)
    Object.assign(env, configMap.data)
  }
  for (const { name, value } of container.env ?? []) {
    if (value === undefined) throw new Error(`${name} has no value of its own (valueFrom)`)
    env[name] = files !== undefined && value.startsWith(`${files.mountPath}/`) ? join(files.dir, value.slice(files.mountPath.length + 1)) : value
  }
  return env
}
