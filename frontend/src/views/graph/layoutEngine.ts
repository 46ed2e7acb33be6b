// Lazy access to the layout engine: the Graphviz worker is created on the first layout (so the
// ~800 KB engine is fetched only by the graph pages) and kept for the session.
import type { GvJson } from './graphModel'

export interface LayoutResult {
  json: GvJson
  /** Time to load the engine for this call (0 once loaded), and to lay out, in ms. */
  loadMs: number
  layoutMs: number
}

let worker: Worker | null = null
let seq = 0
interface Pending {
  resolve: (r: LayoutResult) => void
  reject: (e: Error) => void
  /** Resolve with the engine's text as it is (SVG), not parsed as json0. */
  raw?: (text: string) => void
}
const pending = new Map<number, Pending>()

function getWorker(): Worker {
  if (worker) return worker
  const w = new Worker(new URL('./layout.worker.ts', import.meta.url), { type: 'module' })
  w.onmessage = (ev: MessageEvent<{ id: number; json?: string; error?: string; loadMs?: number; layoutMs?: number }>) => {
    const p = pending.get(ev.data.id)
    if (!p) return
    pending.delete(ev.data.id)
    if (ev.data.error !== undefined || ev.data.json === undefined) {
      p.reject(new Error(ev.data.error ?? 'layout failed'))
      return
    }
    if (p.raw) {
      p.raw(ev.data.json)
      return
    }
    try {
      const t0 = performance.now()
      const json = JSON.parse(ev.data.json) as GvJson
      p.resolve({ json, loadMs: ev.data.loadMs ?? 0, layoutMs: (ev.data.layoutMs ?? 0) + performance.now() - t0 })
    } catch (e) {
      p.reject(e instanceof Error ? e : new Error(String(e)))
    }
  }
  w.onerror = (ev) => {
    ev.preventDefault()
    for (const p of pending.values()) p.reject(new Error(ev.message || 'layout worker failed'))
    pending.clear()
    w.terminate()
    worker = null
  }
  worker = w
  return w
}

/** Lays out a DOT graph with Graphviz `dot`; resolves with Graphviz's json0 output. */
export function layoutDot(dot: string): Promise<LayoutResult> {
  const id = ++seq
  return new Promise<LayoutResult>((resolve, reject) => {
    pending.set(id, { resolve, reject })
    getWorker().postMessage({ id, dot })
  })
}

/** Graphviz's own SVG drawing of a DOT text (the model page's `.dot` files), laid out with `dot`. */
export function renderDotSvg(dot: string): Promise<string> {
  const id = ++seq
  return new Promise<string>((resolve, reject) => {
    pending.set(id, { resolve: () => undefined, reject, raw: resolve })
    getWorker().postMessage({ id, dot, format: 'svg' })
  })
}
