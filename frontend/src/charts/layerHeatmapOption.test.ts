import { describe, expect, it } from 'vitest'
import { layerHeatmapCells, layerHeatmapOption } from './layerHeatmapOption'
import { NONFINITE_KINDS } from './tensorHeatmapOption'

const answer = {
  values: [
    [1, 2, null],
    [-1000, 0.5, 0],
    [null, null, 3],
  ],
  nonfinite: [
    [false, false, true],
    [false, false, false],
    [false, true, false],
  ],
  nonfinite_kind: [
    [0, 0, 1],
    [0, 0, 0],
    [0, 3, 0],
  ],
}
const labels = { step: 'Step', value: 'Value', scale: 'log10 |value|' }

describe('layerHeatmapCells', () => {
  it('linear: colour = value, peak = largest |value| with its sign, non-finite cells apart', () => {
    const c = layerHeatmapCells(answer, 'linear')
    expect(c.finite).toContainEqual([0, 1, -1000, -1000])
    expect(c.finite).toHaveLength(6)
    expect(c.nonFinite).toEqual([[[2, 0, 0]], [], [[1, 2, 0]]]) // NaN, +Inf, −Inf
    expect([c.min, c.max]).toEqual([-1000, 3])
    expect(c.peak).toEqual({ row: 1, col: 0, value: -1000 })
  })

  it('log: colour = log10 |value|, a zero takes the lowest colour, raw value kept', () => {
    const c = layerHeatmapCells(answer, 'log')
    expect(c.finite).toContainEqual([0, 1, 3, -1000])
    expect(c.min).toBeCloseTo(Math.log10(0.5))
    expect(c.max).toBe(3)
    expect(c.finite).toContainEqual([2, 1, c.min, 0])
  })

  it('no finite cell: a zero range, no peak; a server without kinds: its non-finite cells count as NaN', () => {
    const c = layerHeatmapCells({ values: [[null]], nonfinite: [[true]] }, 'linear')
    expect([c.min, c.max, c.peak, c.finite.length]).toEqual([0, 0, null, 0])
    expect(c.nonFinite[0]).toEqual([[0, 0, 0]])
  })
})

describe('layerHeatmapOption', () => {
  it('rows on y (first at the top), steps on x, the scale on the finite series only, a legend for non-finite', () => {
    const c = layerHeatmapCells(answer, 'linear')
    const o = layerHeatmapOption(c, ['0', '1', '2'], ['l/0', 'l/1', 'l/2'], [0, 10, 20], labels) as Record<string, any>
    expect(o.yAxis.data).toEqual(['0', '1', '2'])
    expect(o.yAxis.inverse).toBe(true)
    expect(o.xAxis.data).toEqual(['0', '10', '20'])
    expect(o.yAxis.axisLabel.interval).toBe(0)
    expect(o.visualMap[0].seriesIndex).toBe(0)
    expect([o.visualMap[0].min, o.visualMap[0].max]).toEqual([-1000, 3])
    // non-finite cells: a series per kind present, each with a hidden one-colour scale in its kind's colour
    const nan = NONFINITE_KINDS[0].colors[0]
    const negInf = NONFINITE_KINDS[2].colors[0]
    expect(o.series.map((s: { name: string }) => s.name)).toEqual(['Value', 'NaN', '−Inf'])
    expect(o.visualMap[1]).toMatchObject({ seriesIndex: 1, show: false, inRange: { color: [nan, nan] } })
    expect(o.visualMap[2]).toMatchObject({ seriesIndex: 2, inRange: { color: [negInf, negInf] } })
    expect(o.legend.show).toBe(true)
    expect(o.legend.data.map((d: { name: string }) => d.name)).toEqual(['NaN', '−Inf'])
    expect(o.tooltip.formatter({ value: [1, 2, 0], seriesIndex: 2 })).toContain('−Inf')
    const tip = o.tooltip.formatter({ value: [1, 1, 0.5, 0.5], seriesIndex: 0 })
    expect(tip).toContain('l/1')
    expect(tip).toContain('10–19')
    expect(tip).toContain('0.5')
  })

  it('no legend when every cell is finite', () => {
    const c = layerHeatmapCells({ values: [[1]], nonfinite: [[false]] }, 'linear')
    const o = layerHeatmapOption(c, ['0'], ['<a>'], [5], labels) as Record<string, any>
    expect(o.legend.show).toBe(false)
    expect(o.tooltip.formatter({ value: [0, 0, 1, 1], seriesIndex: 0 })).toContain('&lt;a&gt;')
  })
})
