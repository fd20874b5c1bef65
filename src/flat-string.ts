// A string built by concatenation is kept by V8 as a tree of its parts (a "cons string"): about
// 32 bytes a part, beyond the characters. Matching a regular expression makes V8 flatten its
// subject in place, after which the parts are garbage. For strings kept a long time: the value
// is the same string either way.
const flattenProbe = /^/

export function flattened (value: string): string {
  flattenProbe.test(value)
  return value
}
