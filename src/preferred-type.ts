// Which of the media types an answer can take the request's Accept header prefers (RFC 9110,
// 12.5.1): the highest q, a type named outright before one a wildcard stands for, and among
// equals the first offered. Without Accept, or when none of them is acceptable, the first offered.

export function preferredType (accept: string | undefined, offered: readonly [string, ...string[]]): string {
  if (accept === undefined || accept.trim() === '') return offered[0]
  const ranges = accept.split(',').map((part) => {
    const [range = '', ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase())
    const q = parameters.find((parameter) => parameter.startsWith('q='))
    const weight = q === undefined ? 1 : Number(q.slice(2))
    return { range, weight: Number.isFinite(weight) ? Math.min(Math.max(weight, 0), 1) : 0 }
  })
  let best: { type: string, weight: number, exact: boolean } | undefined
  for (const type of offered) {
    const [major] = type.split('/')
    const match = ranges.find(({ range }) => range === type) ??
      ranges.find(({ range }) => range === `${major ?? ''}/*`) ??
      ranges.find(({ range }) => range === '*/*')
    if (match === undefined || match.weight === 0) continue
    const exact = match.range === type
    if (best === undefined || match.weight > best.weight || (match.weight === best.weight && exact && !best.exact)) best = { type, weight: match.weight, exact }
  }
  return best?.type ?? offered[0]
}
