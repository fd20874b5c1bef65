import t from 'tap'
import { signInSuite } from './sign-in.suite.js'

signInSuite(t, () => ({}))
