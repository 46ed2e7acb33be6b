import { describe, expect, it } from 'vitest'
import type { Landscape } from '@/api/types'
import { buildLandscape3D, surfaceTopAt } from './landscapeOption'

// a bowl on a 3 x 3 grid; the path ends at its centre (0, 0), under the surface there
const points = { x: [-1, 0, 1], y: [-1, 0, 1], z: [[2, 1, 2], [1, 0.5, 1], [2, 1, 2]] }
const ls = { points, path: { x: [-1, -0.5, 0], y: [-1, -0.5, 0], z: [2, 1, 0.2], intervals: [1, 2, 3] } } as unknown as Landscape
const labels = { start: 'Start', end: 'End', path: 'path' }
type Series = { id?: string; type: string; data: unknown[]; label?: { formatter: (p: { dataIndex: number }) => string } }

describe('surfaceTopAt', () => {
  it('is the highest corner of the grid cell holding the point, the edge cell outside the grid', () => {
    expect(surfaceTopAt(points, 0.5, 0.5)).toBe(2)
    expect(surfaceTopAt(points, -0.5, 0.5)).toBe(2)
    expect(surfaceTopAt({ x: [0, 1, 2], y: [0, 1], z: [[0, 1, 5], [0, 2, 6]] }, 0.5, 0.5)).toBe(2)
    expect(surfaceTopAt({ x: [0, 1, 2], y: [0, 1], z: [[0, 1, 5], [0, 2, 6]] }, 9, 9)).toBe(6)
    expect(surfaceTopAt({ x: [0, 1], y: [0, 1], z: [[NaN, NaN], [NaN, NaN]] }, 0.5, 0.5)).toBe(-Infinity)
  })
})

describe('buildLandscape3D', () => {
  const o = buildLandscape3D(ls, 'jet', 1, labels) as Record<string, unknown>
  const series = o.series as Series[]

  it('stands the Start and End pins above the surface, labelled, on stems from the path', () => {
    const pins = series.find((s) => s.id === 'pins')!
    const heads = pins.data.map((d) => (d as { value: number[] }).value)
    expect(heads.map((h) => h.slice(0, 2))).toEqual([[-1, -1], [0, 0]])
    // End: the path is at 0.2, the surface around it reaches 1 (the cell's corners): the pin head is above both
    expect(heads[1][2]).toBeGreaterThan(1)
    expect(heads[0][2]).toBeGreaterThan(2)
    expect([0, 1].map((i) => pins.label!.formatter({ dataIndex: i }))).toEqual(['Start', 'End'])
    expect(series.find((s) => s.id === 'pin:end')!.data).toEqual([[0, 0, 0.2], heads[1]])
    expect(series.find((s) => s.id === 'pin:start')!.data).toEqual([[-1, -1, 2], heads[0]])
  })

  it('keeps the z labels off the ticks and the axis name off the labels', () => {
    const z = o.zAxis3D as { min?: number; max?: number; nameGap: number; axisLabel: { margin: number } }
    expect(z.min).toBeUndefined() // a forced min/max printed its odd value over the nearest nice tick
    expect(z.max).toBeUndefined()
    expect(z.axisLabel.margin).toBeGreaterThanOrEqual(12)
    expect(z.nameGap).toBeGreaterThanOrEqual(40)
  })
})
