import { describe, expect, it } from 'vitest'
import { aboveThreshold, buildScalarOption, marginBand, placeBand, prepareLines } from './scalarOption'
import { formatBytes } from '@/lib/format'

const pts = [
  { step: 0, value: 1, wall_time: 100 },
  { step: 10, value: 2, wall_time: 110 },
  { step: 20, value: 0.5, wall_time: 130 },
]
// The server's envelope saw a spike (9) that the sampled points dropped; its last bucket ends past the data.
const envelope = [
  { step_start: 0, step_end: 9, min: 0.8, max: 9, count: 10 },
  { step_start: 10, step_end: 25, min: 0.4, max: 2.1, count: 11 },
  { step_start: 26, step_end: 30, min: null, max: null, count: 0 },
]
const labels = { step: 'Step', value: 'Value', smoothed: 'Smoothed', time: 'Time', relative: 'Relative' }

describe('min/max envelope band', () => {
  it('places buckets on the step axis, clamped to the plotted steps, skipping empty ones', () => {
    const [line] = prepareLines([{ key: 'a', name: 'a', color: '#000', points: pts, envelope }], 'step', 0)
    expect(line.band).toEqual([
      { x0: 0, x1: 9, min: 0.8, max: 9 },
      { x0: 10, x1: 20, min: 0.4, max: 2.1 },
    ])
  })
  it('interpolates bucket edges on a time axis', () => {
    const [line] = prepareLines([{ key: 'a', name: 'a', color: '#000', points: pts, envelope }], 'relative', 0)
    expect(line.band[0].x0).toBe(0)
    expect(line.band[0].x1).toBeCloseTo(9)
    expect(line.band[1].x1).toBe(30)
    expect(placeBand(envelope, [], 'step')).toEqual([])
  })
  it('draws one custom series per line only when asked, and none of its values below 0 on a log axis', () => {
    const prepared = prepareLines([{ key: 'a', name: 'a', color: '#000', points: pts, envelope }], 'step', 0)
    const base = { xMode: 'step' as const, smoothing: 0, logY: false, showRaw: true, zoom: null, labels }
    const types = (o: unknown) => (o as { series: { type: string }[] }).series.map((s) => s.type)
    expect(types(buildScalarOption(prepared, base))).toEqual(['line', 'line'])
    expect(types(buildScalarOption(prepared, { ...base, showBand: true }))).toEqual(['custom', 'line', 'line'])
  })
})

describe('custom-scalars margin band', () => {
  it('centres each step on its point: half the way to the steps either side', () => {
    const lower = [0, 10, 20, 40].map((step) => ({ step, value: step - 1, wall_time: step }))
    const upper = [0, 10, 20, 40].map((step) => ({ step, value: step + 1, wall_time: step }))
    expect(marginBand(lower, upper).map((b) => [b.step_start, b.step_end, b.min, b.max])).toEqual([
      [0, 5, -1, 1],
      [5, 15, 9, 11],
      [15, 30, 19, 21],
      [30, 40, 39, 41],
    ])
  })
  it('leaves out a step whose lower or upper value is missing', () => {
    const lower = [{ step: 0, value: 1, wall_time: 0 }, { step: 5, value: null, wall_time: 5 }, { step: 9, value: 2, wall_time: 9 }]
    const upper = [{ step: 0, value: 3, wall_time: 0 }, { step: 9, value: 4, wall_time: 9 }]
    expect(marginBand(lower, upper).map((b) => [b.step_start, b.step_end])).toEqual([[0, 4.5], [4.5, 9]])
  })
})

describe('threshold', () => {
  it('counts raw points above it and adds a dashed line and marks', () => {
    const prepared = prepareLines([{ key: 'a', name: 'a', color: '#000', points: pts }], 'step', 0)
    expect(aboveThreshold(prepared, 0.9)).toBe(2)
    expect(aboveThreshold(prepared, null)).toBe(0)
    const option = buildScalarOption(prepared, {
      xMode: 'step', smoothing: 0, logY: false, showRaw: true, zoom: null, labels, threshold: 0.9,
    }) as { series: { id: string; data: unknown[] }[] }
    const line = option.series.find((s) => s.id === 'threshold')!
    expect(line.data).toEqual([[0, 0.9], [20, 0.9]])
    expect(option.series.find((s) => s.id === 'threshold-marks')!.data).toHaveLength(2)
  })
})

describe('formatBytes', () => {
  it('uses powers of 1024', () => {
    expect(formatBytes(512)).toBe('512 B')
    expect(formatBytes(1536)).toBe('1.5 KB')
    expect(formatBytes(40 * 2 ** 20)).toBe('40 MB')
  })
})

describe('sparse series and close y ticks (issue 34)', () => {
  const settings = {
    xMode: 'step' as const, smoothing: 0, logY: false, showRaw: false, zoom: null,
    labels: { step: 's', value: 'v', smoothed: 'sm', time: 't', relative: 'r' },
  }
  it('draws the markers of a 2-point series', () => {
    const two = [{ step: 1, value: 30.51e9, wall_time: 1 }, { step: 2, value: 30.55e9, wall_time: 2 }]
    const o = buildScalarOption(prepareLines([{ key: 'a', name: 'a', color: '#000', points: two }], 'step', 0), settings)
    const series = o.series as { id: string; showSymbol: boolean }[]
    expect(series.find((x) => x.id === 'sm:a')!.showSymbol).toBe(true)
    // ticks 10M apart on a 30.5G value: each tick its own label
    const y = (o.yAxis as { axisLabel: { formatter: (v: number) => string } }[])[0]
    expect(new Set([30.51e9, 30.52e9, 30.53e9, 30.54e9, 30.55e9].map(y.axisLabel.formatter)).size).toBe(5)
  })
})
