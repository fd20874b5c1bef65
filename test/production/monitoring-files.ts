// Reads what ships for operators' monitoring: the alerting rules (docker/prometheus/alerts.yml),
// their unit tests, the example Prometheus configuration and the Grafana dashboard
// (docker/grafana/media-bff.json), for the tests that hold them to media-bff's metrics.
import { readFile } from 'node:fs/promises'
import { parse } from 'yaml'
import { dockerDir } from './deployment-files.js'

export const alertsFile = `${dockerDir}prometheus/alerts.yml`
export const alertsTestFile = `${dockerDir}prometheus/alerts.test.yml`
export const prometheusConfigFile = `${dockerDir}prometheus/prometheus.yml`
export const dashboardFile = `${dockerDir}grafana/media-bff.json`

export interface AlertRule {
  alert: string
  expr: string
  for?: string
  labels?: Record<string, string>
  annotations?: Record<string, string>
}

export interface AlertRuleTest {
  name: string
  alert_rule_test?: Array<{ eval_time: string, alertname: string, exp_alerts?: unknown[] }>
}

export interface ScrapeConfig {
  job_name: string
  static_configs?: Array<{ targets: string[] }>
  authorization?: { credentials_file?: string, credentials?: string }
  [key: string]: unknown
}

export interface PrometheusConfig {
  global?: Record<string, string>
  rule_files?: string[]
  scrape_configs: ScrapeConfig[]
  [key: string]: unknown
}

export interface DashboardTarget { refId: string, expr: string, legendFormat?: string, datasource?: { type: string, uid: string } }
export interface DashboardPanel {
  id: number
  type: string
  title: string
  datasource?: { type: string, uid: string }
  gridPos: { h: number, w: number, x: number, y: number }
  targets?: DashboardTarget[]
}
export interface DashboardVariable {
  name: string
  type: string
  query: string | { query: string }
  definition?: string
  datasource?: { type: string, uid: string }
  includeAll?: boolean
  allValue?: string
}
export interface Dashboard {
  uid: string
  title: string
  schemaVersion: number
  panels: DashboardPanel[]
  templating: { list: DashboardVariable[] }
}

/** One PromQL query of the dashboard, named by its panel. */
export interface DashboardQuery {
  panel: string
  refId: string
  expr: string
}

export async function readAlertRules (): Promise<AlertRule[]> {
  const file = parse(await readFile(alertsFile, 'utf8')) as { groups: Array<{ name: string, rules: AlertRule[] }> }
  return file.groups.flatMap((group) => group.rules)
}

export async function readAlertTests (): Promise<AlertRuleTest[]> {
  return (parse(await readFile(alertsTestFile, 'utf8')) as { tests: AlertRuleTest[] }).tests
}

export async function readPrometheusConfig (): Promise<PrometheusConfig> {
  return parse(await readFile(prometheusConfigFile, 'utf8')) as PrometheusConfig
}

export async function readDashboard (): Promise<Dashboard> {
  return JSON.parse(await readFile(dashboardFile, 'utf8')) as Dashboard
}

export function dashboardQueries (dashboard: Dashboard): DashboardQuery[] {
  return dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel: panel.title, refId: target.refId, expr: target.expr })))
}

/**
 * The expression as Grafana sends it to Prometheus: the dashboard's variables filled in, and
 * `$__rate_interval` (Grafana's at least four scrape intervals) as the window given.
 */
export function withVariables (expr: string, values: { job: string, instance: string, rateInterval: string }): string {
  return expr
    .replaceAll('$__rate_interval', values.rateInterval)
    .replaceAll('$job', values.job)
    .replaceAll('$instance', values.instance)
}
