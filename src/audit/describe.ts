// docs/reference/audit-events.md, written from the declaration (src/audit/audit-events.ts) by
// `npm run generate`; test/audit/audit-events.unit.test.ts fails when the file differs.
import { AUDIT_EVENTS, AUDIT_FIELDS, AUDIT_SCHEMA } from './audit-events.js'

export function auditEventsReference (): string {
  const lines = [
    '<!-- Written by `npm run generate` from src/audit/audit-events.ts: edit that file, not this one. -->',
    '',
    '# The audit events',
    '',
    'media-bff writes one JSON line per security event. `AUDIT_LOG` says where: into the log stream',
    '(the default), a file of their own, or nowhere. In the log stream each line carries',
    '`"audit": "<event>"`, so a log search or a shipper\'s rule can pick them out.',
    '',
    'Audit lines are written whatever `LOG_LEVEL` says. When the reader of the log falls behind,',
    'ordinary lines are dropped first: the last quarter of what may wait is kept for audit lines.',
    'When the reader catches up, one line says how many lines were dropped (`dropped`,',
    '`audit_dropped`). No line holds a token, a cookie or a secret.',
    '',
    `The schema's version is ${AUDIT_SCHEMA} (\`audit_schema\`). Within a version a field may be added,`,
    'never renamed, retyped or dropped.',
    '',
    '## Fields',
    '',
    'Every line has pino\'s `level`, `time` (milliseconds since the epoch), `pid`, `hostname` and',
    '`msg` (`audit: <event>`), and these:',
    '',
    '| field | what it holds |',
    '| --- | --- |',
    ...Object.entries(AUDIT_FIELDS).map(([name, text]) => `| \`${name}\` | ${text} |`),
    '',
    '## Events',
    '',
    '| event | outcome | what it records |',
    '| --- | --- | --- |',
    ...Object.entries(AUDIT_EVENTS).map(([name, { outcome, description }]) => `| \`${name}\` | ${outcome} | ${description.replaceAll('|', '\\|')} |`),
    ''
  ]
  return `${lines.join('\n')}\n`
}
