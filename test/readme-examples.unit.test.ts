// The docs' browser-module examples (docs/guide/integrate.md) are the files
// test/browser/other-origin-site.test.ts runs in Chromium, copied as they stand, and its React and
// Vue snippets (and the package's README's) are functions of the pages
// test/browser/framework-pages.test.ts runs, its Svelte one that page's component whole: an
// example that drifts from the tested one fails here.
import { readFile } from 'node:fs/promises'
import t from 'tap'

const GUIDE = 'docs/guide/integrate.md'
const guide = await readFile(new URL(`../${GUIDE}`, import.meta.url), 'utf8')

for (const [file, language] of [['site.html', 'html'], ['site.js', 'js'], ['frameworks/Account.svelte', 'svelte']] as const) {
  t.test(`${GUIDE} shows test/browser/examples/${file} as it is`, async (t) => {
    const example = await readFile(new URL(`./browser/examples/${file}`, import.meta.url), 'utf8')
    t.ok(guide.includes(`\`\`\`${language}\n${example}\`\`\``), `a \`\`\`${language} block holds the whole file, unchanged`)
  })
}

const packageReadme = await readFile(new URL('../public/client/package/README.md', import.meta.url), 'utf8')
for (const [file, name, language] of [['react.jsx', 'Account', 'jsx'], ['vue.js', 'useSession', 'js']] as const) {
  t.test(`${GUIDE} and the package's README show ${name} of test/browser/examples/frameworks/${file} as it is`, async (t) => {
    const example = await readFile(new URL(`./browser/examples/frameworks/${file}`, import.meta.url), 'utf8')
    const snippet = new RegExp(`^function ${name} \\([^]*?^}\n`, 'm').exec(example)?.[0]
    t.ok(snippet, `the example has function ${name}`)
    t.ok(guide.includes(`\`\`\`${language}\n${snippet ?? '-'}\`\`\``), `${GUIDE}: a block holds it, unchanged`)
    t.ok(packageReadme.includes(`\`\`\`${language}\n${snippet ?? '-'}\`\`\``), 'public/client/package/README.md too')
  })
}
