// Vite plugin: keeps the built app free of eval/new Function, so it runs under the server's
// Content-Security-Policy `script-src 'self' 'wasm-unsafe-eval'` (no 'unsafe-eval' anywhere).
//  * transform: claygl's compositor (echarts-gl's post-effect pipeline, loaded with the 3-D
//    landscape) compiles size expressions with `new Function`; it now calls compileSizeExpr
//    (src/lib/sizeExpr.ts), a small parser for the same arithmetic. The build fails if the
//    pattern is not found (a new claygl version must be looked at, not silently let through).
//  * generateBundle: fails the build if any output chunk still calls `Function(`/`new Function(` or `eval(`.
import { fileURLToPath, URL } from 'node:url'
import type { Plugin } from 'vite'

const TARGET = /[\\/]claygl[\\/]src[\\/]createCompositor\.js$/
const EVAL_CALL = "new Function('width', 'height', 'dpr', 'return ' + exprRes[1])"
const SIZE_EXPR = fileURLToPath(new URL('../src/lib/sizeExpr.ts', import.meta.url))
// `new Function(...)` is minified to `Function(...)`: both, and eval(...), are blocked by the policy.
const FORBIDDEN = /(?<![\w$.])(?:new\s+)?Function\s*\(|(?<![\w$.])eval\s*\(/

export function noEvalCompositor(): Plugin {
  return {
    name: 'mindinsight-clone:no-eval-compositor',
    enforce: 'pre',
    transform(code, id) {
      if (!TARGET.test(id)) return null
      if (!code.includes(EVAL_CALL)) this.error(`${id}: claygl changed; the new Function call to replace was not found`)
      const patched = code.replace(EVAL_CALL, '__compileSizeExpr(exprRes[1])')
      return { code: `import { compileSizeExpr as __compileSizeExpr } from ${JSON.stringify(SIZE_EXPR)};\n${patched}`, map: null }
    },
    generateBundle(_options, bundle) {
      for (const [name, chunk] of Object.entries(bundle)) {
        if (chunk.type === 'chunk' && FORBIDDEN.test(chunk.code)) {
          const at = chunk.code.search(FORBIDDEN)
          this.error(`${name} contains eval/new Function (blocked by the CSP): …${chunk.code.slice(Math.max(0, at - 80), at + 80)}…`)
        }
      }
    },
  }
}
