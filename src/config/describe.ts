// The declaration of the variables (src/config/variables.ts) written out for people: `.env.example`
// and the docs' configuration reference. `npm run generate` writes both (src/generate.ts);
// test/config/declaration.test.ts fails when either file differs from what this makes.
import { VARIABLES, type Variable, type VariableGroup } from './variables.js'

const WIDTH = 100

const ENV_EXAMPLE_HEAD = `# media-bff configuration: every variable it reads. Copy to .env (never commit it) or set these in
# your orchestrator. Written from src/config/variables.ts by \`npm run generate\`: edit it there.
#
# \`npm start\` needs none of this: it runs against the embedded emulator with generated secrets,
# unless a .env points it elsewhere. An active line holds the default, so \`cp .env.example .env &&
# npm start\` still runs the demo; a commented \`# NAME=value\` line shows what a deployment might
# set; a line left blank (NAME=) keeps the default. Durations take seconds or a unit: 900, 30m, 8h,
# 7d. Switches take on or off. A secret may instead come from the file NAME_FILE names.
# A name media-bff does not read but that looks like one of its own is named at start with the one
# meant (an error in this file with NODE_ENV=production).
`

/** `.env.example`: every variable, by group, each with what it does above its line. */
export function envExample (): string {
  const parts = [ENV_EXAMPLE_HEAD]
  for (const [group, variables] of byGroup()) {
    parts.push(`\n# --- ${group} ${'-'.repeat(Math.max(3, WIDTH - group.length - 7))}\n`)
    for (const variable of variables) {
      parts.push(comment(`${variable.description}${defaultNote(variable)}`))
      parts.push(`${exampleLine(variable)}\n`)
    }
  }
  return parts.join('')
}

/** docs/reference/configuration.md: the same, for the docs site, one section per variable. */
export function configurationReference (): string {
  const lines = [
    '<!-- Written from src/config/variables.ts by `npm run generate`: edit it there. -->',
    '',
    '# Configuration reference',
    '',
    'media-bff is configured by environment variables only, read and checked once at start: a bad',
    'value stops it with every problem named at once (exit code 78), and a name it does not read but',
    'that looks like one of its own (`SESSION_IDLE_TIMOUT`) is named with the one meant. A file of',
    'variables in the format of the repository\'s `.env.example` (written from the same declaration',
    'as this page) may stand under the environment ([ENV_FILE](#env-file)); a secret may come from',
    'the file `NAME_FILE` names, as Docker and Kubernetes mount secrets.',
    '',
    'Durations take seconds or a number with a unit: `900`, `30m`, `8h`, `7d`. Switches take `on` or',
    '`off` (also `true`, `false`, `1`, `0`, `yes`, `no`). A list is comma-separated. How the',
    'variables are read and what production refuses: [How configuration works](../guide/configure.md).',
    ''
  ]
  const groups = [...byGroup()]
  for (const [group, variables] of groups) {
    lines.push(`- [${group}](#${anchor(group)}): ${variables.map((variable) => `[${variable.name}](#${anchor(variable.name)})`).join(', ')}`)
  }
  for (const [group, variables] of groups) {
    lines.push('', `## ${group}`)
    for (const variable of variables) {
      lines.push('', `### ${variable.name}`, '')
      lines.push(...facts(variable).map((fact) => `- ${fact}`), '')
      lines.push(markdown(variable.description))
      if (variable.guide !== undefined) lines.push('', `More: [${markdown(variable.guide.title)}](../${variable.guide.path})`)
    }
  }
  return `${lines.join('\n')}\n`
}

function byGroup (): Map<VariableGroup, Variable[]> {
  const groups = new Map<VariableGroup, Variable[]>()
  for (const variable of VARIABLES) groups.set(variable.group, [...(groups.get(variable.group) ?? []), variable])
  return groups
}

function exampleLine (variable: Variable): string {
  const kind = variable.exampleLine ?? (variable.default !== undefined && variable.secret !== true ? 'default' : 'example')
  if (kind === 'blank' || variable.secret === true) return kind === 'blank' ? `${variable.name}=` : `# ${variable.name}=`
  if (kind === 'default') return `${variable.name}=${variable.default ?? ''}`
  return `# ${variable.name}=${variable.example ?? variable.default ?? ''}`
}

/** What the description does not say already: the default when it follows another setting. */
function defaultNote (variable: Variable): string {
  const parts: string[] = []
  if (variable.required === true) parts.push('Required.')
  if (variable.defaultText !== undefined) parts.push(`Default: ${variable.defaultText}.`)
  if (variable.readBy === 'opentelemetry') parts.push('Read by the OpenTelemetry SDK.')
  return parts.length === 0 ? '' : ` ${parts.join(' ')}`
}

function facts (variable: Variable): string[] {
  const facts = [`Type: ${typeText(variable)}`]
  if (variable.required === true) facts.push('Required')
  if (variable.default !== undefined) facts.push(`Default: ${variable.default === '' ? '(empty)' : `\`${variable.default}\``}`)
  else if (variable.defaultText !== undefined) facts.push(`Default: ${markdown(variable.defaultText)}`)
  if (variable.secret === true) facts.push('Secret: never logged; may come from the file `' + variable.name + '_FILE` names')
  else if (variable.fromFile === true) facts.push('May come from the file `' + variable.name + '_FILE` names')
  if (variable.example !== undefined && variable.secret !== true) facts.push(`Example: \`${variable.name}=${variable.example}\``)
  if (variable.readBy === 'opentelemetry') facts.push('Read by the OpenTelemetry SDK itself')
  return facts
}

function typeText (variable: Variable): string {
  const bounds = variable.min !== undefined || variable.max !== undefined
  switch (variable.type) {
    case 'integer': return bounds ? `whole number, ${variable.min ?? 0} to ${variable.max ?? 'any'}` : 'whole number'
    case 'duration': return bounds ? `duration, ${(variable.min ?? 0) / 1000} s to ${(variable.max ?? 0) / 1000} s` : 'duration'
    case 'choice': return `one of ${(variable.choices ?? []).map((choice) => `\`${choice}\``).join(', ')}`
    case 'boolean': return 'on or off'
    case 'list': return 'comma list'
    case 'urls': return 'comma list of origins'
    case 'secrets': return 'comma list of secrets'
    case 'url': return 'URL'
    case 'date-time': return 'date and time with its zone (RFC 3339), or off'
    case 'ratio': return 'number from 0 to 1'
    default: return variable.type
  }
}

/**
 * Description text as a comment, wrapped at WIDTH: markdown's code marks dropped, and a command
 * in them kept on one line, so it can be copied whole.
 */
function comment (text: string): string {
  const lines: string[] = []
  let line = '#'
  for (const word of (text.match(/`[^`]*`|\S+/g) ?? []).map((token) => token.replace(/`/g, ''))) {
    if (line.length + 1 + word.length > WIDTH && line !== '#') {
      lines.push(line)
      line = '#'
    }
    line += ` ${word}`
  }
  lines.push(line)
  return `${lines.join('\n')}\n`
}

/**
 * Text for the docs site: outside `code`, what markdown or the site's templates would take for
 * markup (an <angle> word, a *star, __double underscores) is escaped.
 */
function markdown (text: string): string {
  return text.split(/(`[^`]*`)/).map((part, index) => index % 2 === 1
    ? part
    : part.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\*/g, '\\*').replace(/_/g, '\\_')).join('')
}

/** The anchor the docs site gives a heading: lower case, words joined by hyphens. */
export function anchor (heading: string): string {
  return heading.toLowerCase().replace(/[^a-z0-9\s_-]/g, '').trim().replace(/[\s_]+/g, '-').replace(/-+/g, '-')
}
