// The device-bound session walk (device-bound-sessions.suite.ts) on one instance, in memory.
import t from 'tap'
import { deviceBoundSuite } from './device-bound-sessions.suite.js'

deviceBoundSuite(t, () => ({}), 1)
