// .env.example must list every variable the configuration reads, so operators see them all.
import t from 'tap'
import { readFile } from 'node:fs/promises'

t.test('.env.example names every variable the configuration reads', async (t) => {
  const files = ['../src/config.ts', '../src/config-tenants.ts', '../src/config-mount.ts', '../src/config-tracing.ts']
  const source = (await Promise.all(files.map(async (file) => await readFile(new URL(file, import.meta.url), 'utf8')))).join('\n')
  const example = await readFile(new URL('../.env.example', import.meta.url), 'utf8')
  const variables = new Set([...source.matchAll(/read\.\w+\('([A-Z][A-Z0-9_]+)'/g)].map((match) => match[1] ?? ''))
  t.ok(variables.size >= 30, `found ${variables.size} variables`)
  for (const variable of variables) {
    t.match(example, new RegExp(`^#? ?${variable}=`, 'm'), `${variable} is in .env.example`)
  }
})
