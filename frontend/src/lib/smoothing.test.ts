import { describe, expect, it } from 'vitest'
import { defaultScale, smooth, smoothWindow } from './smoothing'

function tensorboard(ys: number[], w: number): number[] {
  let last = 0
  return ys.map((y, i) => {
    last = last * w + (1 - w) * y
    return last / (1 - Math.pow(w, i + 1))
  })
}

describe('smooth', () => {
  it('is the identity at weight 0', () => {
    expect(smooth([1, 2, 3], [3, null, 5], 0)).toEqual([3, null, 5])
  })

  it('matches TensorBoard on evenly spaced steps with scale 1', () => {
    const xs = Array.from({ length: 50 }, (_, i) => i)
    const ys = xs.map((x) => Math.sin(x) + x / 10)
    const ours = smooth(xs, ys, 0.8, 1)
    const tb = tensorboard(ys, 0.8)
    ours.forEach((v, i) => expect(v).toBeCloseTo(tb[i], 10))
  })

  it('starts at the first value (debiased) and keeps constants constant', () => {
    const out = smooth([0, 5, 7, 100], [2, 2, 2, 2], 0.95)
    out.forEach((v) => expect(v).toBeCloseTo(2, 12))
  })

  it('does not depend on how densely the points were sampled', () => {
    // A slowly varying signal sampled every step vs every 10th step: at shared steps the
    // curves agree up to the discretisation error. (TensorBoard's per-point EMA would smooth the
    // sparse series 10x more, and differ here by ~0.5.)
    const dense = Array.from({ length: 1001 }, (_, i) => i)
    const sparse = dense.filter((x) => x % 10 === 0)
    const f = (x: number) => Math.sin(x / 60)
    const d = smooth(dense, dense.map(f), 0.95, 1)
    const s = smooth(sparse, sparse.map(f), 0.95, 1)
    for (const x of [100, 300, 600, 900]) {
      expect(Math.abs((s[sparse.indexOf(x)] as number) - (d[x] as number))).toBeLessThan(0.1)
    }
    const tbSparse = tensorboard(sparse.map(f), 0.95)
    expect(Math.abs(tbSparse[sparse.indexOf(600)] - (d[600] as number))).toBeGreaterThan(0.3)
  })

  it('passes nulls through without resetting the average', () => {
    const out = smooth([0, 1, 2], [1, null, 1], 0.5, 1)
    expect(out[1]).toBeNull()
    expect(out[2]).toBeCloseTo(1, 12)
  })
})

describe('smoothing a zoomed window (issue 34)', () => {
  it('gives a step the same smoothed value zoomed as on the whole series', () => {
    // the whole series sampled every 10 steps; the window holds every step of 400..600
    const fullXs = Array.from({ length: 100 }, (_, i) => i * 10)
    const f = (x: number) => 0.1 + 0.05 * Math.sin(x / 37) + (x % 7) * 0.01
    const fullYs = fullXs.map(f)
    const xs = Array.from({ length: 201 }, (_, i) => 400 + i)
    const ys = xs.map(f)
    const scale = defaultScale(fullXs)
    const whole = smooth(fullXs, fullYs, 0.9, scale)
    const zoomed = smoothWindow(fullXs, fullYs, xs, ys, 0.9, scale)
    for (const step of [400, 500, 600]) {
      const a = whole[fullXs.indexOf(step)]!
      const b = zoomed[xs.indexOf(step)]!
      expect(Math.abs(a - b)).toBeLessThan(0.01)
    }
    // restarting the average at the window's left edge (the old behaviour) gives the raw value there
    expect(smooth(xs, ys, 0.9, defaultScale(xs))[0]).toBe(ys[0])
    expect(zoomed[0]).not.toBe(ys[0])
  })
})
