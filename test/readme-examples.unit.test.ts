// The README's browser-module examples are the files test/browser/other-origin-site.test.ts runs
// in Chromium, copied as they stand: an example that drifts from the tested one fails here.
import { readFile } from 'node:fs/promises'
import t from 'tap'

const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8')

for (const [file, language] of [['site.html', 'html'], ['site.js', 'js']] as const) {
  t.test(`README.md shows test/browser/examples/${file} as it is`, async (t) => {
    const example = await readFile(new URL(`./browser/examples/${file}`, import.meta.url), 'utf8')
    t.ok(readme.includes(`\`\`\`${language}\n${example}\`\`\``), `a \`\`\`${language} block holds the whole file, unchanged`)
  })
}
