// Reads the series selectors out of the PromQL of docker/prometheus/alerts.yml and
// docker/grafana/media-bff.json, so tests can hold every metric name and label they name to what
// media-bff exports. Only as much of PromQL as finding selectors takes: strings, ranges and the
// label lists of by/without/on/ignoring/group_* are stepped over, and a name followed by `(` is
// a function or an aggregation. Whether the whole expression is valid is Prometheus's to say
// (test/production/prometheus-rules-dashboard.test.ts queries each one).

export interface LabelMatcher {
  label: string
  op: '=' | '!=' | '=~' | '!~'
  value: string
}

export interface Selector {
  /** The metric name; undefined for a selector of matchers alone (`{__name__=~"..."}`). */
  name: string | undefined
  matchers: LabelMatcher[]
  /** The selector as written, without its range: what `count(...)` of it asks Prometheus. */
  text: string
}

const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'inf', 'nan', 'atan2'])
const LABEL_LISTS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right'])
/** Aggregations may be followed by `by (...)` before their parenthesis. */
const AGGREGATIONS = new Set(['sum', 'min', 'max', 'avg', 'group', 'stddev', 'stdvar', 'count', 'count_values', 'bottomk', 'topk', 'quantile'])
const IDENTIFIER = /[a-zA-Z_:][a-zA-Z0-9_:]*/y
const NUMBER = /(?:0x[0-9a-fA-F]+|[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)(?:[smhdwy]|ms)?/y
const MATCHER = /\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*/y

export function selectorsOf (expr: string): Selector[] {
  const selectors: Selector[] = []
  let i = 0
  const skipSpace = (): void => { while (i < expr.length && /\s/.test(expr[i] as string)) i++ }
  const readString = (): string => {
    const quote = expr[i] as string
    let value = ''
    i++
    while (i < expr.length && expr[i] !== quote) {
      if (expr[i] === '\\' && quote !== '`') {
        i++
        const escaped = expr[i] as string
        value += escaped === 'n' ? '\n' : escaped === 't' ? '\t' : escaped
      } else {
        value += expr[i] as string
      }
      i++
    }
    if (i >= expr.length) throw new SyntaxError(`unterminated string in ${expr}`)
    i++
    return value
  }
  const skipPast = (close: string): void => {
    const end = expr.indexOf(close, i)
    if (end < 0) throw new SyntaxError(`no ${close} after position ${i} in ${expr}`)
    i = end + 1
  }
  const readMatchers = (): LabelMatcher[] => {
    const matchers: LabelMatcher[] = []
    i++ // {
    skipSpace()
    while (expr[i] !== '}') {
      MATCHER.lastIndex = i
      const match = MATCHER.exec(expr)
      if (match === null) throw new SyntaxError(`not a label matcher at position ${i} in ${expr}`)
      i = MATCHER.lastIndex
      if (!['"', '\'', '`'].includes(expr[i] ?? '')) throw new SyntaxError(`a label matcher's value must be a string, at position ${i} in ${expr}`)
      matchers.push({ label: match[1] as string, op: match[2] as LabelMatcher['op'], value: readString() })
      skipSpace()
      if (expr[i] === ',') i++
      skipSpace()
      if (i >= expr.length) throw new SyntaxError(`unterminated label matchers in ${expr}`)
    }
    i++ // }
    return matchers
  }

  while (i < expr.length) {
    const char = expr[i] as string
    if (/\s/.test(char) || '()+-*/%^,=!<>@'.includes(char)) {
      i++
    } else if (char === '#') {
      skipPast('\n')
    } else if (['"', '\'', '`'].includes(char)) {
      readString()
    } else if (char === '[') {
      skipPast(']')
    } else if (char === '{') {
      const start = i
      selectors.push({ name: undefined, matchers: readMatchers(), text: expr.slice(start, i) })
    } else if (/[0-9.]/.test(char)) {
      NUMBER.lastIndex = i
      if (NUMBER.exec(expr) === null) throw new SyntaxError(`unexpected ${char} at position ${i} in ${expr}`)
      i = NUMBER.lastIndex
    } else {
      IDENTIFIER.lastIndex = i
      const match = IDENTIFIER.exec(expr)
      if (match === null) throw new SyntaxError(`unexpected ${char} at position ${i} in ${expr}`)
      const start = i
      const word = match[0]
      i = IDENTIFIER.lastIndex
      skipSpace()
      if (KEYWORDS.has(word.toLowerCase()) || AGGREGATIONS.has(word)) {
        if (LABEL_LISTS.has(word) && expr[i] === '(') skipPast(')')
        continue
      }
      if (expr[i] === '(') continue // a function or an aggregation
      const matchers = expr[i] === '{' ? readMatchers() : []
      selectors.push({ name: word, matchers, text: expr.slice(start, i).trim() })
    }
  }
  return selectors
}

/** Every metric a selector of this expression names. */
export const metricNamesOf = (expr: string): string[] => [...new Set(selectorsOf(expr).map((selector) => selector.name ?? ''))]
