// The alerting rules and the dashboard that ship in docker/, checked without a running media-bff:
// promtool checks the rules, runs their unit tests (docker/prometheus/alerts.test.yml) and checks
// the example configuration; every alert carries what an operator needs, is unit-tested both
// firing and quiet, and has its row in the operations guide (docs/guide/operate.md); the outcomes
// and reasons the rules and the dashboard match are ones media-bff's code writes; the dashboard
// is importable as it is.
// test/production/prometheus-stack.test.ts runs them against a real scrape.
import { spawnSync } from 'node:child_process'
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { stringify } from 'yaml'
import { requireProgram } from '../helpers/programs.js'
import { readComposeFile, repoRoot } from './deployment-files.js'
import { alertsFile, alertsTestFile, dashboardQueries, readAlertRules, readAlertTests, readDashboard, readPrometheusConfig } from './monitoring-files.js'
import { selectorsOf } from './promql.js'

const promtool = requireProgram('promtool')
const rules = await readAlertRules()
const dashboard = await readDashboard()
const GUIDE = 'docs/guide/operate.md'
const guide = await readFile(join(repoRoot, GUIDE), 'utf8')
// The guide's section with the alerts' table: its heading's anchor on the docs site.
const RUNBOOK = `${GUIDE}#alerts-and-dashboard`

/** promtool's exit code and everything it printed. */
const runPromtool = (args: string[], cwd: string): { status: number | null, output: string } => {
  const result = spawnSync(promtool, args, { cwd, encoding: 'utf8' })
  return { status: result.status, output: `${result.stdout}${result.stderr}` }
}

t.test('promtool check rules: the rules file is valid', async (t) => {
  const { status, output } = runPromtool(['check', 'rules', alertsFile], repoRoot)
  t.equal(status, 0, output)
  t.match(output, `SUCCESS: ${rules.length} rules found`)
})

t.test('promtool test rules: each alert fires on its series, and stays quiet on the others', async (t) => {
  const { status, output } = runPromtool(['test', 'rules', alertsTestFile], repoRoot)
  t.equal(status, 0, output)
  t.match(output, 'SUCCESS')

  const tests = await readAlertTests()
  for (const { alert } of rules) {
    const evaluations = tests.flatMap((test) => (test.alert_rule_test ?? []).filter((evaluation) => evaluation.alertname === alert))
    t.ok(evaluations.some((evaluation) => (evaluation.exp_alerts ?? []).length > 0), `${alert}: a test where it fires`)
    t.ok(evaluations.some((evaluation) => (evaluation.exp_alerts ?? []).length === 0), `${alert}: a test where it must not`)
  }
  const named = new Set(tests.flatMap((test) => (test.alert_rule_test ?? []).map((evaluation) => evaluation.alertname)))
  t.same([...named].filter((name) => !rules.some((rule) => rule.alert === name)), [], 'no test of an alert that does not exist')
})

t.test('promtool check config: the example configuration, with a token file where it says', async (t) => {
  const config = await readPrometheusConfig()
  t.same(config.rule_files, ['alerts.yml'], 'loads the rules beside it')
  const [job, ...others] = config.scrape_configs
  t.same(others, [], 'one scrape job')
  t.equal(job?.job_name, 'media-bff', 'named as the instance alerts name it')
  t.ok(rules.filter((rule) => /\bup\{/.test(rule.expr)).every((rule) => rule.expr.includes('up{job="media-bff"}')), 'the instance alerts ask for that job')
  const compose = await readComposeFile()
  const replicas = Object.keys(compose.services).filter((name) => /^media-bff-\d+$/.test(name))
  t.same(job?.static_configs?.flatMap((targets) => targets.targets), replicas.map((name) => `${name}:3000`), 'every replica of compose.yaml, on the port media-bff listens on')
  t.match(job?.authorization?.credentials_file, /^\//, 'the metrics token from a file, not written into the configuration')
  t.equal(job?.authorization?.credentials, undefined)

  // The file must exist for promtool; everything else is checked as shipped.
  const dir = await mkdtemp(join(tmpdir(), 'media-bff-promtool-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  const tokenFile = join(dir, 'metrics-token')
  await writeFile(tokenFile, 'a-token-of-thirty-two-characters')
  await copyFile(alertsFile, join(dir, 'alerts.yml'))
  await writeFile(join(dir, 'prometheus.yml'), stringify({ ...config, scrape_configs: [{ ...job, authorization: { credentials_file: tokenFile } }] }))
  const { status, output } = runPromtool(['check', 'config', 'prometheus.yml'], dir)
  t.equal(status, 0, output)
  t.match(output, `SUCCESS: ${rules.length} rules found`, 'with the rules it names')
})

t.test('every alert says how urgent it is, what happened and where its first steps are', async (t) => {
  t.ok(rules.length >= 10, `${rules.length} alerts`)
  t.equal(new Set(rules.map((rule) => rule.alert)).size, rules.length, 'no name twice')
  for (const rule of rules) {
    t.match(rule.alert, /^MediaBff[A-Z]\w+$/, `${rule.alert}: named for media-bff`)
    t.match(rule.for, /^\d+m$/, `${rule.alert}: must hold for minutes before it fires`)
    t.ok(['critical', 'warning'].includes(rule.labels?.severity ?? ''), `${rule.alert}: severity critical or warning`)
    t.match(rule.annotations?.summary, /\S/, `${rule.alert}: a summary`)
    t.ok((rule.annotations?.description ?? '').length >= 40, `${rule.alert}: a description`)
    t.equal(rule.annotations?.runbook_url, RUNBOOK, `${rule.alert}: its runbook`)
  }
  t.match(guide, /^## Alerts and dashboard$/m, 'the section the runbook links to')
})

t.test('the operations guide explains each alert, and no other', async (t) => {
  const start = guide.indexOf('## Alerts and dashboard')
  const section = guide.slice(start, guide.indexOf('\n#', start + 1))
  const rows = [...section.matchAll(/^\| `(MediaBff\w+)` \| (\w+) \| ([^|]+) \| ([^|]+) \|$/gm)]
  t.same(rows.map((row) => row[1]), rules.map((rule) => rule.alert), 'one row per alert, in the order of alerts.yml')
  for (const [, alert, severity, meaning, steps] of rows) {
    const rule = rules.find((candidate) => candidate.alert === alert)
    t.equal(severity, rule?.labels?.severity, `${alert ?? ''}: the same severity`)
    t.ok((meaning?.trim().length ?? 0) > 20 && (steps?.trim().length ?? 0) > 20, `${alert ?? ''}: what it means and the first steps`)
  }
})

t.test('the outcomes and reasons the rules and the dashboard match are ones media-bff writes', async (t) => {
  // The series plugins/metrics.ts makes at zero name these values too: they must be written elsewhere.
  const literals = new Set<string>()
  const atZero: string[] = []
  for (const dir of ['src', 'plugins', 'routes']) {
    for (const entry of await readdir(join(repoRoot, dir), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts')) continue
      for (const line of (await readFile(join(entry.parentPath, entry.name), 'utf8')).split('\n')) {
        const values = [...line.matchAll(/'([a-z_]+)'/g)].map((match) => match[1] ?? '')
        if (/^\s*fromZero\(/.test(line)) atZero.push(...values.slice(1))
        else for (const value of values) literals.add(value)
      }
    }
  }
  t.ok(atZero.length >= 10, `${atZero.length} series made at zero`)
  for (const value of atZero) t.ok(literals.has(value), `"${value}", made at zero, is written by media-bff's code`)
  const exprs = [...rules.map((rule) => rule.expr), ...dashboardQueries(dashboard).map((query) => query.expr)]
  const matched = exprs.flatMap(selectorsOf).flatMap((selector) => selector.matchers).filter((matcher) => ['outcome', 'reason'].includes(matcher.label))
  t.ok(matched.length >= 10, `${matched.length} matchers on outcome or reason`)
  for (const matcher of matched) {
    t.match(matcher.value, /^[a-z_]+(\|[a-z_]+)*$/, `${matcher.label}${matcher.op}"${matcher.value}": plain alternatives`)
    for (const value of matcher.value.split('|')) t.ok(literals.has(value), `${matcher.label} "${value}" is written by media-bff's code`)
  }
})

t.test('the dashboard: Grafana\'s schema, a data source chosen on import, filtered by job and instance', async (t) => {
  t.ok(dashboard.schemaVersion >= 39, `schemaVersion ${dashboard.schemaVersion}`)
  t.equal(dashboard.uid, 'media-bff')
  const variable = (name: string): typeof dashboard.templating.list[number] | undefined => dashboard.templating.list.find((candidate) => candidate.name === name)
  t.match(variable('DS_PROMETHEUS'), { type: 'datasource', query: 'prometheus' })
  // eslint-disable-next-line no-template-curly-in-string -- Grafana's variable, as the file writes it
  const source = { type: 'prometheus', uid: '${DS_PROMETHEUS}' }
  t.match(variable('job'), { type: 'query', datasource: source, query: { query: /^label_values\(media_bff_\w+, job\)$/ } })
  t.match(variable('instance'), { type: 'query', datasource: source, includeAll: true, query: { query: /^label_values\(media_bff_\w+\{job=~"\$job"\}, instance\)$/ } })

  const panels = dashboard.panels.filter((panel) => panel.type !== 'row')
  t.ok(panels.length >= 20, `${panels.length} panels`)
  t.equal(new Set(dashboard.panels.map((panel) => panel.id)).size, dashboard.panels.length, 'panel ids are unique')
  for (const panel of panels) {
    t.same(panel.datasource, source, `${panel.title}: the chosen data source`)
    t.ok((panel.targets ?? []).length > 0, `${panel.title}: queries something`)
    for (const target of panel.targets ?? []) {
      t.same(target.datasource, source, `${panel.title} ${target.refId}: the chosen data source`)
      for (const selector of selectorsOf(target.expr)) {
        t.ok(selector.matchers.some((m) => m.label === 'job' && m.op === '=~' && m.value === '$job') && selector.matchers.some((m) => m.label === 'instance' && m.op === '=~' && m.value === '$instance'),
          `${panel.title}: ${selector.text} follows the job and instance chosen`)
      }
    }
  }
  const overlapping = dashboard.panels.flatMap((a, i) => dashboard.panels.slice(i + 1)
    .filter((b) => a.gridPos.x < b.gridPos.x + b.gridPos.w && b.gridPos.x < a.gridPos.x + a.gridPos.w && a.gridPos.y < b.gridPos.y + b.gridPos.h && b.gridPos.y < a.gridPos.y + a.gridPos.h)
    .map((b) => `${a.title} and ${b.title}`))
  t.same(overlapping, [], 'no panel covers another')
  t.ok(dashboard.panels.every((panel) => panel.gridPos.x + panel.gridPos.w <= 24), 'all within the 24 columns')
})

t.test('the PromQL reader finds every selector, and only selectors', async (t) => {
  t.same(selectorsOf('sum by (job) (rate(a_total{x="1", y=~"b|c"}[5m] offset 1h)) / on (job) group_left (z) b * 1e3 + count without (i) (c) and absent(d)'), [
    { name: 'a_total', matchers: [{ label: 'x', op: '=', value: '1' }, { label: 'y', op: '=~', value: 'b|c' }], text: 'a_total{x="1", y=~"b|c"}' },
    { name: 'b', matchers: [], text: 'b' },
    { name: 'c', matchers: [], text: 'c' },
    { name: 'd', matchers: [], text: 'd' }
  ])
  t.same(selectorsOf('histogram_quantile(0.95, sum(rate(h_bucket{route!~".*/(a|b)", q!="\\"}"}[1m])) by (le))').map((selector) => selector.matchers), [[{ label: 'route', op: '!~', value: '.*/(a|b)' }, { label: 'q', op: '!=', value: '"}' }]])
  t.same(selectorsOf('{__name__=~"m_.*"}').map((selector) => selector.name), [undefined], 'a selector without a name is found, nameless')
  t.throws(() => selectorsOf('m{a="b"'), SyntaxError)
})
