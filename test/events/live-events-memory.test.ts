// Live updates over HTTP on one instance with the in-memory store (live-events.suite.ts).
import t from 'tap'
import { liveEventsSuite } from './live-events.suite.js'

liveEventsSuite(t, () => ({}), false)
