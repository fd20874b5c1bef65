import neostandard from 'neostandard'

export default [
  ...neostandard({ ts: true, ignores: ['dist/**', 'coverage/**', '.tap/**', 'node_modules/**', '.test-build/**', 'docs/public/**', 'docs/.vitepress/.temp/**', 'docs/.vitepress/cache/**'] })
]
