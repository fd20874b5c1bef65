// The default theme, with the component that renders the API reference (reference/api.md).
import DefaultTheme from 'vitepress/theme'
import type { Theme } from 'vitepress'
import ApiReference from './ApiReference.vue'

const theme: Theme = {
  extends: DefaultTheme,
  enhanceApp ({ app }) {
    app.component('ApiReference', ApiReference)
  }
}

export default theme
