// npm run build:client, second half: the module's type declarations bundled into one file beside
// the one JavaScript file esbuild makes (dist/client/media-bff-client.{js,d.ts}), so a website
// vendors two files, or imports both from media-bff (plugins/client-module.ts).
import { dts } from 'rollup-plugin-dts'

export default {
  input: 'public/client/media-bff-client.ts',
  output: { file: 'dist/client/media-bff-client.d.ts', format: 'es' },
  plugins: [dts({ tsconfig: 'tsconfig.json' })]
}
