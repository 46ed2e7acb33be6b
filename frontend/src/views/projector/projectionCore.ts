// The projections the projector's worker computes (also run directly by the unit tests): PCA and t-SNE with
// DruidJS, UMAP with umap-js. Progress is reported through `onStep` so the chart can follow the iterations.
import { Matrix, PCA, TSNE } from '@saehrimnir/druidjs'
import { UMAP } from 'umap-js'
import { seeded, type Method } from './projection'

export interface ProjectRequest {
  method: Method
  /** n × d, row-major */
  data: Float64Array
  n: number
  d: number
  dims: 2 | 3
  seed: number
  /** t-SNE: iterations and perplexity; UMAP: neighbours (epochs are umap-js's own choice for n) */
  iterations?: number
  perplexity?: number
  neighbors?: number
}

/** Coordinates n × dims, row-major. */
export type Coords = Float64Array

function rowsOf(req: ProjectRequest): number[][] {
  const rows: number[][] = []
  for (let i = 0; i < req.n; i++) rows.push(Array.from(req.data.subarray(i * req.d, (i + 1) * req.d)))
  return rows
}

function toCoords(m: { values?: Float64Array } | number[][] | Float64Array[], n: number, dims: number): Coords {
  const out = new Float64Array(n * dims)
  if (Array.isArray(m)) {
    m.forEach((r, i) => {
      for (let j = 0; j < dims; j++) out[i * dims + j] = r[j]
    })
  } else if (m.values) {
    out.set(m.values.subarray(0, n * dims))
  }
  return out
}

/** Runs one projection; `onStep(iteration, total, coords)` is called now and then for the iterative methods. */
export function project(req: ProjectRequest, onStep?: (iter: number, total: number, coords: Coords) => void, every = 10): Coords {
  const { n, dims } = req
  if (req.method === 'pca') {
    const X = new Matrix(n, req.d, (i: number, j: number) => req.data[i * req.d + j])
    const Y = new PCA(X, { d: Math.min(dims, req.d), seed: req.seed }).transform() as unknown as Matrix
    return toCoords(Y as unknown as { values: Float64Array }, n, dims)
  }
  if (req.method === 'tsne') {
    const X = new Matrix(n, req.d, (i: number, j: number) => req.data[i * req.d + j])
    const perplexity = Math.max(2, Math.min(req.perplexity ?? 30, Math.floor((n - 1) / 3)))
    const tsne = new TSNE(X, { d: dims, perplexity, epsilon: 10, seed: req.seed })
    const total = req.iterations ?? 500
    let it = 0
    let Y: unknown = null
    for (const step of tsne.generator(total)) {
      Y = step
      it++
      if (onStep && (it % every === 0 || it === total)) onStep(it, total, toCoords(step as unknown as { values: Float64Array }, n, dims))
    }
    return toCoords(Y as { values: Float64Array }, n, dims)
  }
  const umap = new UMAP({ nComponents: dims, nNeighbors: Math.max(2, Math.min(req.neighbors ?? 15, n - 1)), random: seeded(req.seed) })
  const total = umap.initializeFit(rowsOf(req))
  for (let it = 1; it <= total; it++) {
    umap.step()
    if (onStep && (it % every === 0 || it === total)) onStep(it, total, toCoords(umap.getEmbedding(), n, dims))
  }
  return toCoords(umap.getEmbedding(), n, dims)
}
