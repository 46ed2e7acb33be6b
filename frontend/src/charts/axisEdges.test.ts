import { describe, expect, it } from 'vitest'
import { edgeAwareLabels, niceInterval } from './axisEdges'

describe('niceInterval', () => {
  it('cuts a span into about five nice steps', () => {
    expect(niceInterval(0.5458)).toBeCloseTo(0.1)
    expect(niceInterval(2999)).toBe(500)
    expect(niceInterval(10)).toBe(2)
    expect(niceInterval(0)).toBe(1)
  })
})

describe('edgeAwareLabels', () => {
  const fmt = (v: number) => String(Number(v.toPrecision(4)))
  it('drops an end label that would crowd its neighbouring tick', () => {
    const { interval, formatter } = edgeAwareLabels(-0.2635, 0.2823, fmt)
    expect(interval).toBeCloseTo(0.1)
    expect(formatter(-0.2635)).toBe('') // 0.0635 from -0.2: crowded
    expect(formatter(-0.2)).toBe('-0.2')
    expect(formatter(0.2823)).toBe('') // 0.0823 from 0.2: crowded at a small width
    const b = edgeAwareLabels(-0.3669, 0.3629, fmt)
    expect(b.formatter(-0.3669)).toBe('')
    expect(b.formatter(0.3629)).toBe('')
  })
  it('keeps ends that are ticks themselves or far from one', () => {
    const { formatter } = edgeAwareLabels(0, 3000, fmt)
    expect(formatter(0)).toBe('0')
    expect(formatter(3000)).toBe('3000')
    expect(edgeAwareLabels(6, 3000, fmt).formatter(3000)).toBe('3000') // the last step is a tick
    expect(edgeAwareLabels(480, 3000, fmt).formatter(480)).toBe('') // "480 500" would crowd
  })
})
