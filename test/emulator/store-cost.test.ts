// The emulator's stores forget old records without sweeping on every call: a call visits no
// records except the one sweep per interval, so 20k registrations (or tokens, or codes) do not
// make a call's work grow. Work is counted in records visited, not in time. Records past their
// time are forgotten when looked up, and by the next sweep when nobody looks.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { createExpiringMap, type ExpiringMapWork } from '../../emulator/expiring-map.js'
import { createAuthorizationCodeStore } from '../../emulator/oauth/authorization-codes.js'
import { createTokenStore } from '../../emulator/oauth/token-store.js'
import { createUploadStore } from '../../emulator/upload/upload-store.js'
import type { UploadOptions } from '../../emulator/upload/upload-options.js'

const calls = 20_000
const stepMs = 50
const sweepEveryMs = 60_000
const elapsedMs = calls * stepMs
const options: UploadOptions = { maxFilesize: undefined, maxFiles: undefined, maxSize: undefined, fileExtensions: undefined, noTranscode: false, hideResponse: false, autofinish: true }

/** Runs `call` many times on a clock that advances by stepMs; returns the records each call visited. */
function visitsPerCall (clock: { now: number }, work: () => ExpiringMapWork, call: () => void): number[] {
  const visits: number[] = []
  for (let i = 0; i < calls; i++) {
    const before = work().visited
    call()
    visits.push(work().visited - before)
    clock.now += stepMs
  }
  return visits
}

function checkFlat (t: Test, visits: number[], work: ExpiringMapWork): void {
  const maxSweeps = Math.floor(elapsedMs / sweepEveryMs) + 1
  t.ok(work.sweeps >= 1 && work.sweeps <= maxSweeps, `${work.sweeps} sweep(s) in ${elapsedMs / 1000} s (at most one a minute)`)
  t.equal(visits.filter((count) => count > 0).length, work.sweeps, 'only the sweeping calls visit records')
  const sum = (list: number[]): number => list.reduce((total, count) => total + count, 0)
  t.ok(sum(visits.slice(-1000)) <= calls + 2, 'the last 1000 calls visit at most one sweep\'s worth of records')
  t.comment(`${work.visited} records visited in ${work.sweeps} sweep(s): ${(work.visited / calls).toFixed(2)} per call on average (a sweep on every call: ${(calls - 1) / 2})`)
}

t.test('upload registrations: flat cost, forgotten a day after expiry', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'emulator-store-cost-'))
  t.teardown(async () => { await rm(dataDir, { recursive: true, force: true }) })
  const clock = { now: 1_700_000_000_000 }
  const store = await createUploadStore(dataDir, () => clock.now)
  const first = store.register({ userName: 'alice', folderId: 7, title: undefined, options }, 1)
  const visits = visitsPerCall(clock, store.work, () => { store.register({ userName: 'bob', folderId: 1, title: undefined, options }, 3600) })
  checkFlat(t, visits, store.work())

  t.ok(store.registration(first.ulid), 'an expired registration is kept for a day (finish stays repeatable)')
  clock.now += 26 * 3600 * 1000
  t.equal(store.registration(first.ulid), undefined, 'then forgotten when looked up')
  const swept = store.work().sweeps
  store.register({ userName: 'alice', folderId: 2, title: undefined, options }, 3600)
  t.equal(store.work().sweeps, swept + 1, 'the next write sweeps')
  const visited = store.work().visited
  clock.now += sweepEveryMs
  store.register({ userName: 'alice', folderId: 2, title: undefined, options }, 3600)
  t.equal(store.work().visited - visited, 1, 'bob\'s long-expired registrations are gone too: the next sweep finds one record')
})

t.test('tokens: flat cost; a family is revoked through its index, also after sweeps', async (t) => {
  const clock = { now: 1_700_000_000_000 }
  const store = createTokenStore(() => clock.now)
  const family = { familyId: store.startFamily(), userName: 'alice', clientId: 'client' }
  const kept = store.issue('refresh', family, ['basic'], 30 * 24 * 3600)
  const short = store.issue('access', family, ['basic'], 1)
  const visits = visitsPerCall(clock, store.work, () => {
    store.issue('access', { familyId: store.startFamily(), userName: 'bob', clientId: 'client' }, ['basic'], 1)
  })
  checkFlat(t, visits, store.work())
  t.equal(store.findLive(short.token, 'access'), undefined, 'an expired token is not live')
  t.ok(store.list().length < calls, 'long-dead tokens were forgotten by the sweeps')
  store.revokeFamily(family.familyId)
  t.equal(store.findLive(kept.token, 'refresh'), undefined, 'revoking the family reaches its remaining token')
})

t.test('authorization codes: flat cost, remembered ten minutes after expiry for replay detection', async (t) => {
  const clock = { now: 1_700_000_000_000 }
  const store = createAuthorizationCodeStore(() => clock.now)
  const fields = { clientId: 'client', redirectUri: 'http://127.0.0.1:9/cb', userName: 'alice', scopes: ['basic'], codeChallenge: undefined, codeChallengeMethod: undefined }
  const old = store.create(fields, 60)
  clock.now += 9 * 60 * 1000
  t.ok(store.find(old.code), 'an expired code is still recognised')
  const visits = visitsPerCall(clock, store.work, () => { store.create(fields, 60) })
  checkFlat(t, visits, store.work())
  t.equal(store.find(old.code), undefined, 'and forgotten later')
})

t.test('an expiring map sweeps at most once per interval, however often it is written', async (t) => {
  const clock = { now: 0 }
  const forgotten: string[] = []
  const map = createExpiringMap<string, number>({ sweepEveryMs: 1000, now: () => clock.now, onForget: (key) => forgotten.push(key) })
  map.set('short', -1, 500)
  map.set('long', -2, 5000)
  for (let i = 0; i < 999; i++) map.set(`k${i}`, i, 10_000)
  t.equal(map.work().sweeps, 0, 'no sweep within the first interval')
  clock.now = 600
  t.equal(map.values().includes(-1), false, 'a record past its time is not listed')
  t.equal(map.get('short'), undefined, 'nor returned')
  t.same(forgotten, ['short'], 'and is forgotten on access')
  clock.now = 1000
  map.set('x', 0, 10_000)
  map.set('y', 0, 10_000)
  t.equal(map.work().sweeps, 1, 'one sweep for two writes in the next interval')
  clock.now = 6000
  map.set('z', 0, 10_000)
  t.same(forgotten, ['short', 'long'], 'a sweep forgets what nobody asked for')
  t.equal(map.get('x'), 0)
})
