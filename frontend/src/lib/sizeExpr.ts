// Size expressions of claygl's compositor (echarts-gl post-effects), e.g.
//   "[width * dpr / 4, height * dpr / 4]" or "height * 1.0 / 16",
// compiled WITHOUT eval/new Function, so the 3-D view runs under the app's Content-Security-Policy
// (script-src 'self' 'wasm-unsafe-eval'). vite-plugins/noEvalCompositor.ts swaps claygl's
// `new Function('width', 'height', 'dpr', 'return ' + expr)` for `compileSizeExpr(expr)`.
// Grammar: list := '[' sum (',' sum)* ']' | sum;  sum := prod (('+'|'-') prod)*;
//          prod := unary (('*'|'/') unary)*;  unary := '-' unary | atom;
//          atom := number | width | height | dpr | '(' sum ')'.  Anything else is refused.

export type SizeFn = (width: number, height: number, dpr?: number) => number | number[]

type Node = (env: [number, number, number]) => number

const TOKEN = /\s*(?:(\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?|(width|height|dpr)\b|([-+*/(),[\]]))/iy

function tokenize(src: string): string[] {
  const out: string[] = []
  TOKEN.lastIndex = 0
  let pos = 0
  while (pos < src.length) {
    if (/^\s*$/.test(src.slice(pos))) break
    TOKEN.lastIndex = pos
    const m = TOKEN.exec(src)
    if (!m) throw new Error('Invalid expression.')
    out.push(m[0].trim())
    pos = TOKEN.lastIndex
  }
  return out
}

/** Compiles a size expression into a function of (width, height, dpr); throws 'Invalid expression.'. */
export function compileSizeExpr(src: string): SizeFn {
  const tokens = tokenize(src)
  let i = 0
  const peek = () => tokens[i]
  const take = (t?: string): string => {
    const tok = tokens[i]
    if (tok === undefined || (t !== undefined && tok !== t)) throw new Error('Invalid expression.')
    i++
    return tok
  }
  const atom = (): Node => {
    const tok = take()
    if (tok === '(') {
      const inner = sum()
      take(')')
      return inner
    }
    if (tok === 'width') return (e) => e[0]
    if (tok === 'height') return (e) => e[1]
    if (tok === 'dpr') return (e) => e[2]
    const n = Number(tok)
    if (!Number.isFinite(n) || !/^[\d.]/.test(tok)) throw new Error('Invalid expression.')
    return () => n
  }
  const unary = (): Node => {
    if (peek() === '-') {
      take()
      const inner = unary()
      return (e) => -inner(e)
    }
    return atom()
  }
  const prod = (): Node => {
    let left = unary()
    while (peek() === '*' || peek() === '/') {
      const op = take()
      const a = left
      const b = unary()
      left = op === '*' ? (e) => a(e) * b(e) : (e) => a(e) / b(e)
    }
    return left
  }
  const sum = (): Node => {
    let left = prod()
    while (peek() === '+' || peek() === '-') {
      const op = take()
      const a = left
      const b = prod()
      left = op === '+' ? (e) => a(e) + b(e) : (e) => a(e) - b(e)
    }
    return left
  }
  let fn: SizeFn
  if (peek() === '[') {
    take('[')
    const items = [sum()]
    while (peek() === ',') {
      take(',')
      items.push(sum())
    }
    take(']')
    fn = (w, h, d) => items.map((f) => f([w, h, d ?? 1]))
  } else {
    const one = sum()
    fn = (w, h, d) => one([w, h, d ?? 1])
  }
  if (i !== tokens.length) throw new Error('Invalid expression.')
  return fn
}
