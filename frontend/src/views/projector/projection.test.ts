import { describe, expect, it } from 'vitest'
import { colorBy, explainedVariance, flatten, MAX_CATEGORIES, sampleIndices, seeded, spriteCell, totalVariance } from './projection'
import { project } from './projectionCore'

describe('sampleIndices', () => {
  it('keeps every point under the limit, else a seeded sample in index order', () => {
    expect(sampleIndices(5, 10)).toEqual([0, 1, 2, 3, 4])
    const s = sampleIndices(10_000, 2000)
    expect(s).toHaveLength(2000)
    expect(new Set(s).size).toBe(2000)
    expect(s).toEqual([...s].sort((a, b) => a - b))
    expect(sampleIndices(10_000, 2000)).toEqual(s) // the same on every visit
    expect(s[s.length - 1]).toBeGreaterThan(9000) // spread over the whole range, not the first rows
  })
})

describe('colorBy', () => {
  const rows = [['noun', 'train', '0.5'], ['verb', 'valid', '1'], ['noun', 'train', '2'], ['adverb', 'train', '-1']]
  it('colours by category in order of first appearance', () => {
    const c = colorBy(rows, 0)
    expect(c.kind).toBe('category')
    if (c.kind !== 'category') return
    expect(c.categories).toEqual(['noun', 'verb', 'adverb'])
    expect([...c.index]).toEqual([0, 1, 0, 2])
    expect(new Set(c.colors).size).toBe(3)
  })
  it('colours a numeric column on a scale', () => {
    expect(colorBy(rows, 2)).toMatchObject({ kind: 'number', min: -1, max: 2 })
    expect(colorBy(rows, -1)).toEqual({ kind: 'none' })
  })
  it('refuses a column with too many categories to tell apart', () => {
    const many = Array.from({ length: MAX_CATEGORIES + 1 }, (_, i) => [`w${i}`])
    expect(colorBy(many, 0)).toEqual({ kind: 'unusable', reason: 'too_many', count: MAX_CATEGORIES + 1 })
  })
})

describe('spriteCell and flatten', () => {
  it('places thumbnails row by row', () => {
    expect(spriteCell(0, 15, 16, 16)).toEqual({ x: 0, y: 0 })
    expect(spriteCell(16, 15, 16, 16)).toEqual({ x: 16, y: 16 })
    expect(spriteCell(199, 15, 16, 16)).toEqual({ x: 4 * 16, y: 13 * 16 })
  })
  it('flattens the picked rows, NaN as 0', () => {
    expect([...flatten([[1, 2], [3, null], [5, 6]], [0, 1], 2)]).toEqual([1, 2, 3, 0])
  })
})

/** Two tight clusters far apart in 8 dimensions. */
function clusters(nEach: number, seed = 7): { data: Float64Array; n: number; d: number; label: number[] } {
  const d = 8
  const rand = seeded(seed)
  const rows: number[][] = []
  const label: number[] = []
  for (let c = 0; c < 2; c++)
    for (let i = 0; i < nEach; i++) {
      rows.push(Array.from({ length: d }, (_, j) => (j === 0 ? c * 20 : 0) + (rand() - 0.5)))
      label.push(c)
    }
  return { data: Float64Array.from(rows.flat()), n: rows.length, d, label }
}

/** Share of points whose nearest other point in the projection has the same label. */
function neighbourAgreement(coords: Float64Array, label: number[]): number {
  const n = label.length
  let ok = 0
  for (let i = 0; i < n; i++) {
    let best = -1
    let bestD = Infinity
    for (let j = 0; j < n; j++) {
      if (i === j) continue
      const dx = coords[2 * i] - coords[2 * j]
      const dy = coords[2 * i + 1] - coords[2 * j + 1]
      const dd = dx * dx + dy * dy
      if (dd < bestD) [bestD, best] = [dd, j]
    }
    if (label[best] === label[i]) ok++
  }
  return ok / n
}

describe('project', () => {
  it('PCA: the first coordinate follows the direction of largest variance', () => {
    const rand = seeded(3)
    const t = Array.from({ length: 100 }, () => rand() * 10)
    const dir = [3, -1, 2, 0.5].map((x) => x / Math.hypot(3, -1, 2, 0.5))
    const data = Float64Array.from(t.flatMap((ti) => dir.map((u) => ti * u + (rand() - 0.5) * 0.01)))
    const coords = project({ method: 'pca', data, n: 100, d: 4, dims: 2, seed: 1 })
    const x = Array.from({ length: 100 }, (_, i) => coords[2 * i])
    const mean = (a: number[]) => a.reduce((s, v) => s + v, 0) / a.length
    const [mx, mt] = [mean(x), mean(t)]
    const cov = x.reduce((s, v, i) => s + (v - mx) * (t[i] - mt), 0)
    const r = cov / Math.sqrt(x.reduce((s, v) => s + (v - mx) ** 2, 0) * t.reduce((s, v) => s + (v - mt) ** 2, 0))
    expect(Math.abs(r)).toBeGreaterThan(0.9999)
  })

  it('t-SNE and UMAP keep two clusters apart, reporting their iterations', () => {
    const { data, n, d, label } = clusters(30)
    for (const method of ['tsne', 'umap'] as const) {
      const steps: number[] = []
      const coords = project({ method, data, n, d, dims: 2, seed: 5, iterations: 150, perplexity: 10, neighbors: 10 }, (it) => steps.push(it), 50)
      expect(coords).toHaveLength(2 * n)
      expect(neighbourAgreement(coords, label), method).toBe(1)
      expect(steps.length, method).toBeGreaterThan(0)
    }
  })
})

describe('explainedVariance', () => {
  it('gives PCA axes the share of the variance they hold', () => {
    // points on a slanted line plus a little noise across it: PC1 holds almost everything
    const n = 200
    const rows: number[][] = []
    const rnd = seeded(3)
    for (let i = 0; i < n; i++) {
      const t = i / n - 0.5
      const e = (rnd() - 0.5) * 0.01
      rows.push([3 * t + e, 2 * t - e, t])
    }
    const data = flatten(rows, rows.map((_, i) => i), 3)
    const total = totalVariance(data, n, 3)
    const coords = project({ method: 'pca', data: new Float64Array(data), n, d: 3, dims: 2, seed: 1 })
    const [pc1, pc2] = explainedVariance(coords, n, 2, total)
    expect(pc1).toBeGreaterThan(0.99)
    expect(pc1 + pc2).toBeLessThanOrEqual(1 + 1e-9)
    expect(pc2).toBeLessThan(0.01)
  })
  it('is empty without variance', () => {
    expect(explainedVariance(new Float64Array([1, 1, 1, 1]), 2, 2, 0)).toEqual([])
    expect(totalVariance(new Float64Array([5, 5, 5]), 3, 1)).toBe(0)
  })
})
