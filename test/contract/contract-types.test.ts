// The browser module's types of media-bff's JSON are written from the schemas its routes answer
// with (src/contract/ -> public/client/contract.ts, `npm run generate`): one copy. This fails when
// either is changed alone, and the type checks below fail to compile (npm test's typecheck) when
// the written types and the schemas' own static types part ways.
import { readFile } from 'node:fs/promises'
import t from 'tap'
import type { Static } from 'typebox'
import { contractTypes } from '../../src/contract/typescript.js'
import { CONTRACT, type FinishResult, type SessionState, type UploadRegistration, type MediaFile, type ErrorBody, type LiveEventData } from '../../src/contract/index.js'
import type * as Written from '../../public/client/contract.js'

/** Compiles only when A and B each take the other's values. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const same = <T extends true>(value: T): T => value
same<Same<Written.Session, Static<typeof SessionState>>>(true)
same<Same<Written.UploadRegistration, Static<typeof UploadRegistration>>>(true)
same<Same<Written.FinishResult, Static<typeof FinishResult>>>(true)
same<Same<Written.ErrorBody, Static<typeof ErrorBody>>>(true)
same<Same<Written.MediaFile['status'], Static<typeof MediaFile>['status']>>(true)
// The live channel's events as the browser module reads them and as the server writes them (but
// resync's empty data, which TypeBox types {} and the module Record<string, never>: nothing at all).
same<Same<keyof Written.LiveEventData, keyof LiveEventData>>(true)
same<Same<Omit<Written.LiveEventData, 'resync'>, Omit<LiveEventData, 'resync'>>>(true)

t.test('public/client/contract.ts is what the schemas make now', async (t) => {
  const written = await readFile(new URL('../../public/client/contract.ts', import.meta.url), 'utf8')
  t.equal(written, contractTypes(), 'npm run generate writes it')
  // A schema changed alone makes other types, which the comparison above would see.
  const upload = JSON.parse(JSON.stringify(CONTRACT.UploadRegistration)) as { properties: Record<string, unknown>, required: string[] }
  delete upload.properties.ulid
  upload.required = upload.required.filter((name) => name !== 'ulid')
  t.not(contractTypes({ ...CONTRACT, UploadRegistration: upload }), written, 'the file and a changed schema part ways')
})

t.test('each named schema is one declaration, referred to by name wherever another holds it', async (t) => {
  const written = contractTypes()
  for (const name of Object.keys(CONTRACT)) t.match(written, new RegExp(`^export (interface ${name} |type ${name} = )`, 'm'), name)
  t.match(written, /^ {2}upstream\?: UpstreamFailure$/m, 'a named schema, even made optional, by name')
  t.match(written, /^ {2}files: StoredFile\[\]$/m)
  t.match(written, /^export type Session = SignedInSession \| SignedOutSession$/m)
  t.match(written, /^ {2}\[field: string\]: unknown$/m, 'the service\'s answers may hold more than is known')
  t.match(written, /^export interface LiveEventData \{\n(?: {2}\/\*\*.*\n {2}\w+: Live\w+\n)+\}$/m, 'the live channel\'s events, each with its data\'s named type')
})
