// Web worker running Graphviz (compiled to WebAssembly, @hpcc-js/wasm-graphviz) off the main
// thread. The wasm is inlined in this bundle: nothing is fetched, and instantiating it needs
// only CSP `script-src 'wasm-unsafe-eval'` (worker-src 'self' allows this file).
import { Graphviz } from '@hpcc-js/wasm-graphviz'

let engine: Promise<Graphviz> | null = null

interface Req {
  id: number
  dot: string
  /** 'json0' (positions, the default) or 'svg' (a drawing: the model page's .dot files). */
  format?: 'json0' | 'svg'
}

self.onmessage = async (ev: MessageEvent<Req>) => {
  const { id, dot, format = 'json0' } = ev.data
  try {
    const t0 = performance.now()
    engine ??= Graphviz.load()
    const gv = await engine
    const t1 = performance.now()
    // json0: positions only, without the xdot drawing ops of 'json' (5x smaller); not in the typings.
    const json = gv.layout(dot, format as Parameters<Graphviz['layout']>[1], 'dot')
    const t2 = performance.now()
    ;(self as unknown as Worker).postMessage({ id, json, loadMs: t1 - t0, layoutMs: t2 - t1 })
  } catch (e) {
    ;(self as unknown as Worker).postMessage({ id, error: e instanceof Error ? e.message : String(e) })
  }
}
