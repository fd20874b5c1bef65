// `npm run generate`: writes the files made from a declaration in the code, so that none is edited
// by hand: `.env.example` and the docs' configuration reference (src/config/variables.ts), the
// audit events' reference (src/audit/audit-events.ts), and the
// browser module's types of media-bff's JSON (src/contract/), and the Prometheus Operator's copies
// of the alert rules and the dashboard (src/kubernetes-monitoring.ts). test/config/declaration.test.ts,
// test/contract/contract-types.test.ts and test/production/kubernetes.test.ts fail when a written
// file differs from what its source makes now.
import { writeFile } from 'node:fs/promises'
import { configurationReference, envExample } from './config/describe.js'
import { contractTypes } from './contract/typescript.js'
import { grafanaDashboard, prometheusRule } from './kubernetes-monitoring.js'
import { auditEventsReference } from './audit/describe.js'

const root = new URL('../', import.meta.url)

const generated: Record<string, () => string> = {
  '.env.example': envExample,
  'docs/reference/configuration.md': configurationReference,
  'docs/reference/audit-events.md': auditEventsReference,
  'public/client/contract.ts': contractTypes,
  'docker/kubernetes/components/prometheus-operator/prometheus-rule.yaml': prometheusRule,
  'docker/kubernetes/components/prometheus-operator/grafana-dashboard.yaml': grafanaDashboard
}

for (const [file, make] of Object.entries(generated)) {
  await writeFile(new URL(file, root), make())
  process.stdout.write(`${file}\n`)
}
