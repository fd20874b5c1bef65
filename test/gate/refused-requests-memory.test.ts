// test/gate/refused-requests.suite.ts on the in-memory stores.
import t from 'tap'
import { refusedRequestsSuite } from './refused-requests.suite.js'

refusedRequestsSuite(t, () => ({}))
