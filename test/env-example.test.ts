// .env.example must list every variable the configuration reads, so operators see them all.
import t from 'tap'
import { readFile } from 'node:fs/promises'

t.test('.env.example names every variable src/config.ts reads', async (t) => {
  const source = await readFile(new URL('../src/config.ts', import.meta.url), 'utf8')
  const example = await readFile(new URL('../.env.example', import.meta.url), 'utf8')
  const variables = new Set([...source.matchAll(/read\.\w+\('([A-Z][A-Z0-9_]+)'/g)].map((match) => match[1] ?? ''))
  t.ok(variables.size >= 30, `found ${variables.size} variables`)
  for (const variable of variables) {
    t.match(example, new RegExp(`^#? ?${variable}=`, 'm'), `${variable} is in .env.example`)
  }
})
