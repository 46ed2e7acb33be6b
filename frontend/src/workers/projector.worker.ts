// The embedding projector's worker: PCA, t-SNE (DruidJS) and UMAP (umap-js) off the page's thread, reporting
// the iterations as they go (views/projector/projectionCore.ts). One job at a time; the page terminates the
// worker when another projection is asked for.
import { project, type ProjectRequest } from '@/views/projector/projectionCore'

export type ProjectorMessage =
  | { id: number; kind: 'progress'; iter: number; total: number; coords: Float64Array }
  | { id: number; kind: 'done'; coords: Float64Array; ms: number }
  | { id: number; kind: 'error'; message: string }

self.onmessage = (e: MessageEvent<ProjectRequest & { id: number }>) => {
  const { id } = e.data
  const t0 = performance.now()
  try {
    const coords = project(e.data, (iter, total, c) => {
      const msg: ProjectorMessage = { id, kind: 'progress', iter, total, coords: c }
      self.postMessage(msg, { transfer: [c.buffer] })
    })
    const msg: ProjectorMessage = { id, kind: 'done', coords, ms: performance.now() - t0 }
    self.postMessage(msg, { transfer: [coords.buffer] })
  } catch (err) {
    const msg: ProjectorMessage = { id, kind: 'error', message: err instanceof Error ? err.message : String(err) }
    self.postMessage(msg)
  }
}
