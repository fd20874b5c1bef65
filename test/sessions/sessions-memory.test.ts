// A person's sessions and the operator's lever over HTTP, in memory.
import t from 'tap'
import { sessionsSuite } from './sessions-http.suite.js'

sessionsSuite(t, () => ({}))
