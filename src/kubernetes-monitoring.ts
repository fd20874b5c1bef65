// docker/kubernetes/components/prometheus-operator's two generated files, made from the files
// Prometheus and Grafana load directly (docker/prometheus/alerts.yml, docker/grafana/media-bff.json),
// so the alerts and the dashboard are written once: a PrometheusRule holding alerts.yml's groups,
// and a ConfigMap holding the dashboard, labelled for Grafana's dashboard sidecar. `npm run
// generate` writes them; test/production/kubernetes.test.ts fails when they differ.
// Plain text, not a YAML library: this runs only under `npm run generate`, and the image holds
// no dependency for it (test/production/image-layout.test.ts).
import { readFileSync } from 'node:fs'

const root = new URL('../', import.meta.url)
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8')
const indent = (text: string, by: string): string => text.replace(/\n+$/, '').split('\n').map((line) => line === '' ? '' : `${by}${line}`).join('\n')

const header = (what: string, source: string): string =>
  `# ${what}, written by \`npm run generate\` from ${source}: edit that file, not this one.\n`

export function prometheusRule (): string {
  const alerts = read('docker/prometheus/alerts.yml')
  const groups = alerts.slice(alerts.search(/^groups:$/m))
  if (!groups.startsWith('groups:')) throw new Error('docker/prometheus/alerts.yml has no top-level groups:')
  return header('The alert rules as a PrometheusRule', 'docker/prometheus/alerts.yml') + [
    'apiVersion: monitoring.coreos.com/v1',
    'kind: PrometheusRule',
    'metadata:',
    '  name: media-bff',
    '  labels:',
    '    app.kubernetes.io/name: media-bff',
    '    # kustomization.yaml says why.',
    '    release: kube-prometheus-stack',
    'spec:',
    indent(groups, '  ')
  ].join('\n') + '\n'
}

export function grafanaDashboard (): string {
  const dashboard = read('docker/grafana/media-bff.json')
  JSON.parse(dashboard)
  return header('The dashboard as a ConfigMap for Grafana\'s sidecar', 'docker/grafana/media-bff.json') + [
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    '  name: media-bff-dashboard',
    '  labels:',
    '    app.kubernetes.io/name: media-bff',
    '    # The label kube-prometheus-stack\'s Grafana sidecar looks for.',
    '    grafana_dashboard: "1"',
    'data:',
    '  media-bff.json: |',
    indent(dashboard, '    ')
  ].join('\n') + '\n'
}
