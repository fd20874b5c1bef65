// React: the session store through useSyncExternalStore, as it is (under StrictMode, which
// subscribes, unsubscribes and subscribes again).
import { StrictMode, useSyncExternalStore } from 'react'
import { createRoot } from 'react-dom/client'
import { bff, session, signInError } from './media-bff.js'

function Account () {
  const current = useSyncExternalStore(session.subscribe, session.getSnapshot, session.getServerSnapshot)
  if (current === undefined) return <p id='state'>Loading…</p>
  if (!current.authenticated) return <button id='sign-in' onClick={() => bff.signIn()}>Sign in</button>
  return <p id='state'>Signed in as <b id='name'>{current.user.name}</b> <button id='sign-out' onClick={() => bff.logout()}>Sign out</button></p>
}

createRoot(document.querySelector('#app')).render(
  <StrictMode>
    <p id='auth-error'>{signInError?.message}</p>
    <Account />
  </StrictMode>
)
