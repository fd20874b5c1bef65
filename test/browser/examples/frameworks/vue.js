// Vue: the session store as a shallow ref, set from subscribe (which calls at once with the
// session as known); render functions, so the page needs no template compiler.
import { createApp, h, onUnmounted, shallowRef } from 'vue'
import { bff, session, signInError } from './media-bff.js'

function useSession () {
  const current = shallowRef(session.getSnapshot())
  onUnmounted(session.subscribe((value) => { current.value = value }))
  return current
}

createApp({
  setup () {
    const current = useSession()
    return () => [
      h('p', { id: 'auth-error' }, signInError?.message),
      current.value === undefined
        ? h('p', { id: 'state' }, 'Loading…')
        : current.value.authenticated
          ? h('p', { id: 'state' }, ['Signed in as ', h('b', { id: 'name' }, current.value.user.name), ' ', h('button', { id: 'sign-out', onClick: () => bff.logout() }, 'Sign out')])
          : h('button', { id: 'sign-in', onClick: () => bff.signIn() }, 'Sign in')
    ]
  }
}).mount('#app')
