import { describe, expect, it } from 'vitest'
import { legendRows, prepareLines, stepTickFormatter, summarize, toCsv } from './scalarOption'

const pts = [
  { step: 1, value: 1, wall_time: 100 },
  { step: 2, value: null, wall_time: 101 },
  { step: 4, value: 3, wall_time: 105 },
]

describe('scalar chart data', () => {
  it('computes x for each axis mode', () => {
    const line = { key: 'a', name: 'a', color: '#000', points: pts }
    expect(prepareLines([line], 'step', 0)[0].points.map((p) => p.x)).toEqual([1, 2, 4])
    expect(prepareLines([line], 'relative', 0)[0].points.map((p) => p.x)).toEqual([0, 1, 5])
    expect(prepareLines([line], 'absolute', 0)[0].points.map((p) => p.x)).toEqual([100000, 101000, 105000])
  })
  it('summarises the last point and exports CSV with NaN as empty', () => {
    const prepared = prepareLines([{ key: 'a', name: 'loss', color: '#000', points: pts }], 'step', 0)
    expect(summarize(prepared)[0]).toMatchObject({ name: 'loss', points: 3, lastX: 4, lastY: 3, lastSmoothedY: 3 })
    expect(toCsv(prepared).split('\n')[2]).toBe('loss,2,101,,')
  })
})

describe('step axis labels in a zoomed window', () => {
  it('shows whole steps where three significant digits cannot tell the ticks apart', () => {
    expect(stepTickFormatter(null)(123_100)).toBe('123k')
    expect(stepTickFormatter(200_000)(120_000)).toBe('120k')
    expect(stepTickFormatter(2_000)(123_100)).toBe('123100')
    expect(stepTickFormatter(2_000)(123_200)).not.toBe(stepTickFormatter(2_000)(123_100))
    expect(stepTickFormatter(40)(500)).toBe('500')
  })
})

describe('legendRows', () => {
  const chars = (s: string) => s.length * 6
  it('wraps legend items into the rows ECharts will draw', () => {
    // item = 12 + 5 + 6 a char; 10 px between items
    expect(legendRows(['./a', './b'], 400, chars)).toBe(1)
    const runs = ['./mlp_lr0.02_bs32_adam', './resnet_lr0.05_bs128_momentum', './lenet_lr0.1_bs16_sgd', './lenet_lr0.001_bs64_adam', './lenet_lr0.01_bs32_momentum']
    const widths = runs.map((r) => 17 + chars(r))
    expect(legendRows(runs, widths[0] + 10 + widths[1], chars)).toBe(3)
    expect(legendRows(runs, 100, chars)).toBe(5) // one a row when none fits beside another
    expect(legendRows([], 100, chars)).toBe(1)
  })
})

describe('zoomed windows keep the whole series smoothing (issue 34)', () => {
  it('smooths the window as part of its series: the same step, the same smoothed value', () => {
    const f = (s: number) => 0.1 + 0.05 * Math.sin(s / 37) + (s % 7) * 0.01
    const pt = (s: number) => ({ step: s, wall_time: 1000 + s, value: f(s) })
    const base = [{ key: 'a', name: 'loss', color: '#000', points: Array.from({ length: 100 }, (_, i) => pt(i * 10)) }]
    const zoomed = [{ ...base[0], points: Array.from({ length: 201 }, (_, i) => pt(400 + i)) }]
    const whole = prepareLines(base, 'step', 0.9)[0].points
    const win = prepareLines(zoomed, 'step', 0.9, base)[0].points
    for (const step of [400, 500, 600]) {
      const a = whole.find((p) => p.step === step)!.smoothed!
      const b = win.find((p) => p.step === step)!.smoothed!
      expect(Math.abs(a - b)).toBeLessThan(0.01)
    }
  })
})
