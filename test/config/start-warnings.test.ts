// A configuration that loads with a warning (src/config/config.ts) says so once, as the app starts:
// here, an ALLOWED_ORIGINS entry of another site than PUBLIC_URL's (src/config/same-site.ts).
import t from 'tap'
import { startBff } from '../helpers/bff.js'
import type { RunningEmulator } from '../../emulator/index.js'

t.test('the warning is logged once as the app starts', async (t) => {
  const upstream = { baseUrl: 'http://127.0.0.1:9', clientId: 'client', clientSecret: 'secret' } as RunningEmulator
  const bff = await startBff(upstream, { ALLOWED_ORIGINS: 'https://shop.example.net' })
  t.teardown(bff.close)
  const lines = bff.logs.map((line) => JSON.parse(line) as { msg: string, warning?: string }).filter((line) => line.msg === 'configuration: take note')
  t.equal(lines.length, 1)
  t.match(lines[0]?.warning, /shop\.example\.net" is not the same site/)
})
