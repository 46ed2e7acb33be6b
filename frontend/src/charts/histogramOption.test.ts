import { describe, expect, it } from 'vitest'
import type { HistogramStep } from '@/api/types'
import { buildHistogramOption, histogramContent, nearestBucket, nonFinite } from './histogramOption'

const buckets = (counts: number[]): [number, number, number][] => counts.map((c, k) => [k, 1, c])
const steps: HistogramStep[] = [
  { step: 1, wall_time: 1, buckets: buckets([1, 5, 9, 2]) },
  { step: 2, wall_time: 2, buckets: buckets([3, 4, 1, 8]), nan_count: 2, pos_inf_count: 1, neg_inf_count: 0 },
]
const labels = { step: 'Step', count: 'Count', range: 'Range', time: 'Time', peak: '峰值区间', nan: 'NaN', posInf: '+Inf', negInf: '-Inf' }

describe('front view tooltip snapping', () => {
  it('picks the bucket whose centre is nearest on x, on the step nearest on y', () => {
    expect(nearestBucket(steps, 2.4, 8.5)).toEqual({ seriesIndex: 0, dataIndex: 2 }) // centre 2.5: counts 9 vs 1
    expect(nearestBucket(steps, 2.6, 0)).toEqual({ seriesIndex: 1, dataIndex: 2 })
    expect(nearestBucket(steps, 3.9, 7)).toEqual({ seriesIndex: 1, dataIndex: 3 })
    expect(nearestBucket(steps, -5, 3)).toEqual({ seriesIndex: 1, dataIndex: 0 }) // left of every bucket: the first
    expect(nearestBucket([], 1, 1)).toBeNull()
  })
})

describe('tooltips', () => {
  it('top view: translated peak label and the NaN/Inf counts of the step', () => {
    const o = buildHistogramOption(steps, 'top', 'step', labels) as { tooltip: { formatter: (p: unknown) => string } }
    const html = o.tooltip.formatter({ dataIndex: 1 })
    expect(html).toContain('峰值区间')
    expect(html).not.toContain('max @')
    expect(html).toContain('NaN: 2 · +Inf: 1 · -Inf: 0')
    expect(o.tooltip.formatter({ dataIndex: 0 })).not.toContain('NaN')
  })
  it('counts default to 0 when the server sends none', () => {
    expect(nonFinite(steps[0])).toEqual({ nan: 0, posInf: 0, negInf: 0 })
    expect(nonFinite(steps[1])).toEqual({ nan: 2, posInf: 1, negInf: 0 })
  })
})

describe('histogramContent', () => {
  it('tells an all-NaN histogram (empty buckets, NaN counted apart) from one with values', () => {
    const nan: HistogramStep[] = [{ step: 1, wall_time: 1, buckets: buckets([0, 0, 0]), nan_count: 10 }]
    expect(histogramContent(nan)).toBe('nan')
    expect(histogramContent([{ ...nan[0], pos_inf_count: 2 }])).toBe('nonfinite')
    expect(histogramContent(steps)).toBe('data')
    expect(histogramContent([...nan, steps[0]])).toBe('data') // one step with values is enough to draw
    expect(histogramContent([])).toBe('empty')
  })
})

describe('all values equal', () => {
  // the server's answer for a TensorBoard all-zero bias: one zero-width bucket holding the 64 values
  const spike: HistogramStep[] = [{ step: 1, wall_time: 1, buckets: [[0, 0, 64]] }]
  it('draws one spike at the value with its count, on an axis around it', () => {
    expect(histogramContent(spike)).toBe('data')
    const o = buildHistogramOption(spike, 'front', 'step', labels) as {
      xAxis: { min: number; max: number }
      series: { data: number[][] }[]
    }
    expect(o.xAxis.min).toBeLessThan(0)
    expect(o.xAxis.max).toBeGreaterThan(0)
    expect(o.series[0].data.map((d) => d.slice(0, 2))).toEqual([[0, 64], [0, 0]])
    expect(nearestBucket(spike, 0.1, 60)).toEqual({ seriesIndex: 0, dataIndex: 0 })
  })
})
