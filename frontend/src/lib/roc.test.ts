import { describe, expect, it } from 'vitest'
import type { PrCurve } from '@/api/types'
import { area, prPoints, rocPoints } from './roc'

/** Counts of a classifier over known labels and scores, computed the way add_pr_curve counts (score >= t). */
function curveOf(labels: number[], scores: number[], n: number): PrCurve {
  const c: PrCurve = { step: 0, wall_time: 0, thresholds: [], tp: [], fp: [], tn: [], fn: [], precision: [], recall: [] }
  for (let i = 0; i < n; i++) {
    const t = i / (n - 1)
    let tp = 0, fp = 0, tn = 0, fn = 0
    labels.forEach((l, j) => {
      const pos = scores[j] >= t
      if (l && pos) tp++
      else if (!l && pos) fp++
      else if (!l) tn++
      else fn++
    })
    c.thresholds.push(t)
    c.tp.push(tp)
    c.fp.push(fp)
    c.tn.push(tn)
    c.fn.push(fn)
    c.precision.push(tp / Math.max(tp + fp, 1))
    c.recall.push(tp / Math.max(tp + fn, 1))
  }
  return c
}

describe('rocPoints', () => {
  it('TPR = tp / (tp + fn) and FPR = fp / (fp + tn) per threshold', () => {
    const c: PrCurve = {
      step: 3, wall_time: 0, thresholds: [0, 0.5, 1],
      tp: [10, 6, 0], fp: [20, 5, 0], tn: [0, 15, 20], fn: [0, 4, 10],
      precision: [1 / 3, 6 / 11, 0], recall: [1, 0.6, 0],
    }
    const roc = rocPoints(c)
    expect(roc.map((p) => [p.x, p.y])).toEqual([[1, 1], [0.25, 0.6], [0, 0]])
    expect(roc[1]).toMatchObject({ threshold: 0.5, tp: 6, fp: 5, tn: 15, fn: 4 })
    // no predicted positive at t = 1: PR has no precision there
    expect(prPoints(c).map((p) => p.threshold)).toEqual([0, 0.5])
  })

  it('leaves out thresholds whose ratios are undefined (no positive or no negative example)', () => {
    const c: PrCurve = {
      step: 0, wall_time: 0, thresholds: [0, 1], tp: [0, 0], fp: [3, 1], tn: [0, 2], fn: [0, 0], precision: [0, 0], recall: [0, 0],
    }
    expect(rocPoints(c)).toEqual([])
  })
})

describe('area', () => {
  it('is 1 for a perfect ranking and 0.5 for a useless one', () => {
    const perfect = curveOf([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9], 11)
    expect(area(rocPoints(perfect), true)).toBeCloseTo(1, 12)
    const coin = curveOf([0, 1, 0, 1], [0.5, 0.5, 0.5, 0.5], 11)
    expect(area(rocPoints(coin), true)).toBeCloseTo(0.5, 12)
  })

  it('equals the Mann-Whitney statistic for distinct scores on a fine threshold grid', () => {
    const labels = [1, 0, 1, 1, 0, 0, 1, 0, 1, 0]
    const scores = [0.93, 0.71, 0.66, 0.58, 0.52, 0.41, 0.37, 0.22, 0.15, 0.04]
    let wins = 0
    let pairs = 0
    labels.forEach((l, i) => {
      if (!l) return
      labels.forEach((m, j) => {
        if (m) return
        pairs++
        if (scores[i] > scores[j]) wins++
      })
    })
    expect(area(rocPoints(curveOf(labels, scores, 1001)), true)).toBeCloseTo(wins / pairs, 12)
  })

  it('needs two points', () => {
    expect(area([])).toBeNull()
  })
})
