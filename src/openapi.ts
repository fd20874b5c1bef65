// `npm run openapi [file]`: writes the OpenAPI description, the very text /docs serves, to `file`
// (openapi.json at the repository's root by default) and prints where. It is the description of an
// app built with the canonical configuration (src/config/canonical.ts), never started: no
// environment, .env or secret of this machine goes into it. The app needs the browser module
// built, which the script does first (build:client).
import { writeFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { describeApi } from './app.js'

const file = resolve(process.argv[2] ?? 'openapi.json')
await writeFile(file, await describeApi())
process.stdout.write(`${file}\n`)
