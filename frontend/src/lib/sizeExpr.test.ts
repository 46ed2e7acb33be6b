import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compileSizeExpr } from './sizeExpr'

/** Every `expr(...)` size expression echarts-gl ships (its compositor JSON), read from node_modules. */
function echartsGlExpressions(): string[] {
  const root = join(__dirname, '../../node_modules/echarts-gl/lib')
  const found = new Set<string>()
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name)
      if (statSync(p).isDirectory()) walk(p)
      else if (name.endsWith('.js')) for (const m of readFileSync(p, 'utf8').matchAll(/'expr\((.*)\)'/g)) found.add(m[1])
    }
  }
  walk(root)
  return [...found]
}

describe('compileSizeExpr', () => {
  it('computes what JavaScript computes for every expression echarts-gl uses', () => {
    const exprs = echartsGlExpressions()
    expect(exprs.length).toBeGreaterThan(20)
    for (const src of exprs) {
      // The reference is plain JS evaluation (allowed in this Node test, not in the app).
      const reference = new Function('width', 'height', 'dpr', 'return ' + src) as (w: number, h: number, d: number) => unknown
      for (const [w, h, d] of [[1, 1, 1], [812, 431, 2], [1400, 900, 1.5]]) {
        expect(compileSizeExpr(src)(w, h, d)).toEqual(reference(w, h, d))
      }
    }
  })

  it('handles precedence, parentheses, unary minus and a missing dpr', () => {
    expect(compileSizeExpr('width - height / 2 * 3')(10, 4)).toBe(4)
    expect(compileSizeExpr('(width - height) / 2')(10, 4)).toBe(3)
    expect(compileSizeExpr('-width + 1e1')(3, 0)).toBe(7)
    expect(compileSizeExpr('[width * dpr, height * dpr]')(2, 3)).toEqual([2, 3])
  })

  it('refuses anything that is not arithmetic on width, height and dpr', () => {
    for (const bad of ['alert(1)', 'width.constructor', 'window', 'width;1', '[width, height', 'width +', '', '1 2', 'this', '`x`']) {
      expect(() => compileSizeExpr(bad), bad).toThrow('Invalid expression.')
    }
  })
})
