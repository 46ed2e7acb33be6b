// Pure helpers of the embedding projector: the sample a slow method runs on, how a metadata column colours
// the points, and where a point's thumbnail sits in the sprite.
import { SERIES_COLORS } from '@/lib/palette'

export type Method = 'pca' | 'tsne' | 'umap'
export const METHODS: readonly Method[] = ['pca', 'tsne', 'umap']

/**
 * Points each method runs on at most. PCA takes every point sent. DruidJS's t-SNE is exact (O(n²) memory and
 * time per iteration), so it runs on a sample, as TensorBoard's projector does (it samples 10,000 for its
 * Barnes-Hut t-SNE and 5,000 for UMAP, which umap-js computes with nearest-neighbour descent).
 */
export const SAMPLE_LIMIT: Record<Method, number> = { pca: Infinity, tsne: 2000, umap: 5000 }

/** A seeded generator (mulberry32): the same sample on every visit. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Indices of at most `limit` of `n` points: all of them in order, or a seeded random sample in index order. */
export function sampleIndices(n: number, limit: number, seed = 42): number[] {
  const all = Array.from({ length: n }, (_, i) => i)
  if (n <= limit) return all
  const rand = seeded(seed)
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1))
    ;[all[i], all[j]] = [all[j], all[i]]
  }
  return all.slice(0, limit).sort((a, b) => a - b)
}

/** Rows of the points picked, flattened (n × d, row-major); NaN / ±Inf (null) become 0. */
export function flatten(values: (number | null)[][], indices: number[], d: number): Float64Array {
  const out = new Float64Array(indices.length * d)
  indices.forEach((row, k) => {
    const r = values[row]
    for (let j = 0; j < d; j++) {
      const v = r?.[j]
      out[k * d + j] = typeof v === 'number' && Number.isFinite(v) ? v : 0
    }
  })
  return out
}

/** Most categories a column may have to colour by it (more would repeat colours beyond use). */
export const MAX_CATEGORIES = 60

export type Coloring =
  | { kind: 'none' }
  | { kind: 'category'; categories: string[]; index: Int32Array; colors: string[] }
  | { kind: 'number'; values: Float64Array; min: number; max: number }
  | { kind: 'unusable'; reason: 'too_many'; count: number }

const EXTRA_COLORS = Array.from({ length: MAX_CATEGORIES }, (_, i) => `hsl(${Math.round((i * 137.508) % 360)}, 62%, 52%)`)

export function categoryColor(i: number): string {
  return i < SERIES_COLORS.length ? SERIES_COLORS[i] : EXTRA_COLORS[i - SERIES_COLORS.length]
}

/**
 * How column `col` colours the points: by category (in order of first appearance), by number (every value of
 * the column a finite number), or not at all (too many categories to tell apart).
 */
export function colorBy(rows: string[][], col: number): Coloring {
  if (col < 0) return { kind: 'none' }
  const cells = rows.map((r) => r[col] ?? '')
  const nums = cells.map((c) => (c.trim() === '' ? NaN : Number(c)))
  if (cells.length && nums.every((v) => Number.isFinite(v))) {
    let min = Infinity
    let max = -Infinity
    for (const v of nums) {
      if (v < min) min = v
      if (v > max) max = v
    }
    if (max > min) return { kind: 'number', values: Float64Array.from(nums), min, max }
  }
  const categories: string[] = []
  const seen = new Map<string, number>()
  const index = new Int32Array(cells.length)
  cells.forEach((c, i) => {
    let k = seen.get(c)
    if (k === undefined) {
      k = categories.length
      seen.set(c, k)
      categories.push(c)
    }
    index[i] = k
  })
  if (categories.length > MAX_CATEGORIES) return { kind: 'unusable', reason: 'too_many', count: categories.length }
  return { kind: 'category', categories, index, colors: categories.map((_, i) => categoryColor(i)) }
}

/** Where point `i`'s thumbnail is in a sprite of `perRow` images per row, each `w` × `h` pixels. */
export function spriteCell(i: number, perRow: number, w: number, h: number): { x: number; y: number } {
  const row = Math.floor(i / Math.max(1, perRow))
  return { x: (i % Math.max(1, perRow)) * w, y: row * h }
}

/** Total variance of n × d row-major data: the sum of its columns' variances (PCA's denominator). */
export function totalVariance(data: Float64Array, n: number, d: number): number {
  if (n < 2) return 0
  let total = 0
  for (let j = 0; j < d; j++) {
    let mean = 0
    for (let i = 0; i < n; i++) mean += data[i * d + j]
    mean /= n
    let sq = 0
    for (let i = 0; i < n; i++) sq += (data[i * d + j] - mean) ** 2
    total += sq / (n - 1)
  }
  return total
}

/** The share of the total variance each projected axis holds (n × dims row-major coordinates of an orthonormal
 * projection such as PCA): var(axis) / total. Empty when there is no variance to share. */
export function explainedVariance(coords: Float64Array, n: number, dims: number, total: number): number[] {
  if (!(total > 0) || n < 2) return []
  const out: number[] = []
  for (let j = 0; j < dims; j++) {
    let mean = 0
    for (let i = 0; i < n; i++) mean += coords[i * dims + j]
    mean /= n
    let sq = 0
    for (let i = 0; i < n; i++) sq += (coords[i * dims + j] - mean) ** 2
    out.push(sq / (n - 1) / total)
  }
  return out
}
