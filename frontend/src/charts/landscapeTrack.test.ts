import { describe, expect, it } from 'vitest'
import { path2D, trackPoints, trackUpdate } from './landscapeOption'

const path = { x: [0, 10, 20], y: [0, -10, -20], z: [3, 2, 1], intervals: [1, 2, 3] }

describe('training-track animation', () => {
  it('shows the whole path when not animating and at the end', () => {
    expect(trackPoints(path, null)).toHaveLength(3)
    expect(trackPoints(path, 2)).toHaveLength(3)
    expect(trackPoints(path, 99)).toHaveLength(3)
  })

  it('grows from the start point, with an interpolated head between points', () => {
    expect(trackPoints(path, 0)).toEqual([{ x: 0, y: 0, z: 3, interval: 1 }])
    const mid = trackPoints(path, 1.25)
    expect(mid).toHaveLength(3)
    expect(mid[2]).toEqual({ x: 12.5, y: -12.5, z: 1.75, interval: 2 })
    expect(path2D(path, 0.5)).toEqual([[0, 0, 3, 1], [5, -5, 2.5, 1]])
  })

  it('moves the head marker to the last drawn point, and hides it when done', () => {
    const u = trackUpdate(path, 0.5, 'contour') as { series: { id: string; data: number[][] }[] }
    expect(u.series.find((s) => s.id === 'head')!.data).toEqual([[5, -5]])
    const u3 = trackUpdate(path, 0.5, 'surface') as { series: { id: string; data: number[][] }[] }
    expect(u3.series.find((s) => s.id === 'head')!.data).toEqual([[5, -5, 2.5]])
    const done = trackUpdate(path, null, 'surface') as { series: { id: string; data: number[][] }[] }
    expect(done.series.find((s) => s.id === 'head')!.data).toEqual([])
    expect(done.series.find((s) => s.id === 'path')!.data).toHaveLength(3)
  })
})
