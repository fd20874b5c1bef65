// Svelte: the component (Account.svelte, compiled by the page's bundler) mounted on the page.
import { mount } from 'svelte'
import Account from './Account.svelte'

mount(Account, { target: document.querySelector('#app') })
