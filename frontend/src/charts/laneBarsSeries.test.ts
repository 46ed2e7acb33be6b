import { describe, expect, it } from 'vitest'
import { laneBarsSeries, type LaneApi, type LaneBarDatum } from './laneBarsSeries'

// a grid at (100, 10), 400 x 200 px; x: 1 unit = 1 px from x=100; row r centred at y = 30 + 40 r (rows 40 px tall)
const params = { coordSys: { x: 100, y: 10, width: 400, height: 200 } }
function apiFor(d: LaneBarDatum): LaneApi {
  return {
    value: (i) => d[i],
    coord: ([x, row]) => [100 + x, 30 + 40 * row],
    size: () => [0, 40],
  }
}
type Out = { shape: { x: number; y: number; width: number; height: number }; style: Record<string, unknown>; textContent?: { style: { text: string } } } | null

describe('laneBarsSeries: the one Gantt renderer', () => {
  const names = ['MatMul-op1', 'Add', 'ReduceSum']
  const series = laneBarsSeries({
    id: 'events',
    data: [
      [10, 110, 0, 0],
      [20, 20, 1, 1],
      [-50, 30, 2, 2],
    ],
    heightRatio: 0.5,
    minHeight: 4,
    fill: (i) => ['#a', '#b', '#c'][i],
    outline: '#bg',
    emphasis: '#fg',
    label: (i) => names[i],
  })
  const draw = (k: number) => series.renderItem(params, apiFor(series.data[k])) as Out

  it('is a custom series over [start, end, row, index] data', () => {
    expect(series).toMatchObject({ id: 'events', name: 'events', type: 'custom', encode: { x: [0, 1], y: 2 } })
  })
  it('draws each bar on its row, its height a share of the row, its colour by index', () => {
    const a = draw(0)!
    expect(a.shape).toEqual({ x: 110, y: 20, width: 100, height: 20 })
    expect(a.style).toEqual({ fill: '#a', stroke: '#bg', lineWidth: 0.5 })
    expect(a.textContent?.style.text).toBe('MatMul-op1')
  })
  it('keeps a zero-length bar 1 px wide, unlabelled and unoutlined', () => {
    const b = draw(1)!
    expect(b.shape.width).toBe(1)
    expect(b.style.lineWidth).toBe(0)
    expect(b.textContent).toBeUndefined()
  })
  it('clips a bar to the grid, and draws nothing outside it', () => {
    expect(draw(2)!.shape.x).toBe(100)
    const outside = series.renderItem(params, { ...apiFor([0, 10, 9, 0]) })
    expect(outside).toBeNull()
  })
  it('without outline/label options draws plain filled bars (the old layout\'s step graph)', () => {
    const plain = laneBarsSeries({ data: [[0, 50, 0, 0]], heightRatio: 0.6, minHeight: 6, fill: () => '#p' })
    const out = plain.renderItem(params, apiFor(plain.data[0])) as Out
    expect(out!.style).toEqual({ fill: '#p' })
    expect(out!.shape.height).toBe(24)
    expect('id' in plain).toBe(false)
  })
})
