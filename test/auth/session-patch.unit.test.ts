// The @fastify/session patch (patches/README.md): the installed package carries it, and change
// detection still tells a session that was written to from one that was only read.
import { createRequire } from 'node:module'
import { readFile } from 'node:fs/promises'
import t from 'tap'

const require = createRequire(import.meta.url)

interface SessionLike {
  isModified: () => boolean
  [key: string]: unknown
}
type SessionClass = new (store: unknown, request: unknown, idGenerator: () => string, cookieOpts: object, signer: { sign: (value: string) => string }, previous?: object, id?: string) => SessionLike

t.test('the installed @fastify/session carries the change-detection patch', async (t) => {
  const source = await readFile(require.resolve('@fastify/session/lib/session.js'), 'utf8')
  t.match(source, 'media-bff patch (patches/README.md)', 'npm install ran patch-package (the postinstall script)')
})

t.test('a restored session is unmodified until written to, however it is written to', async (t) => {
  const Session = require('@fastify/session/lib/session.js') as SessionClass
  const restore = (): SessionLike => new Session({}, {}, () => 'id', { path: '/' }, { sign: (value) => `${value}.sig` }, {
    grantId: 'g1',
    user: { id: '7', name: 'Alice', email: 'alice@example.test' },
    deniedScopes: ['share'],
    lastSeen: 1,
    cookie: { path: '/', httpOnly: true }
  }, 'id')
  t.notOk(restore().isModified(), 'only read')
  const writes: Array<[string, (session: SessionLike) => void]> = [
    ['a new key', (session) => { session.tenant = 'north' }],
    ['a changed number', (session) => { session.lastSeen = 2 }],
    ['a nested field', (session) => { (session.user as { name: string }).name = 'Alice B.' }],
    ['an array pushed to', (session) => { (session.deniedScopes as string[]).push('manage') }],
    ['a deleted key', (session) => { delete session.grantId }]
  ]
  for (const [name, write] of writes) {
    const session = restore()
    write(session)
    t.ok(session.isModified(), name)
  }
  const cookieOnly = restore()
  ;(cookieOnly.cookie as { maxAge?: number }).maxAge = 5
  t.notOk(cookieOnly.isModified(), 'the cookie is not part of the data')
  const same = restore()
  same.lastSeen = 1
  t.notOk(same.isModified(), 'writing the same value is no change')
})

t.test('a session restored from frozen values (as the session store gives them) is checked by identity', async (t) => {
  const Session = require('@fastify/session/lib/session.js') as SessionClass
  const stored = Object.freeze({ grantId: 'g1', user: Object.freeze({ id: '7', name: 'Alice' }), deniedScopes: Object.freeze(['share']), lastSeen: 1 })
  const restore = (): SessionLike => new Session({}, {}, () => 'id', { path: '/' }, { sign: (value) => `${value}.sig` }, stored, 'id')
  t.notOk(restore().isModified(), 'only read')
  const touched = restore()
  touched.lastSeen = 2
  t.ok(touched.isModified(), 'a touch')
  const copied = restore()
  copied.user = { ...(copied.user as object) }
  t.ok(copied.isModified(), 'a value replaced by an equal copy counts as a change: a save too many, never one too few')
})
