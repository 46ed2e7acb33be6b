import { describe, expect, it } from 'vitest'
import { cloudPoints, cubeBounds, faceGrid, meshNames } from './meshModel'

describe('meshNames', () => {
  it('groups the component tags of each mesh', () => {
    expect([...meshNames(['cube_1', 'cube_2', 'cube_3', 'pc_VERTEX', 'pc_COLOR'])]).toEqual([
      ['cube', 'cube_1'],
      ['pc', 'pc_VERTEX'],
    ])
  })
})

describe('cloudPoints', () => {
  it('colours each vertex by its 0-255 colour, clamped', () => {
    const pts = cloudPoints({ step: 0, wall_time: 0, vertices: [[0, 1, 2], [3, 4, 5]], faces: null, colors: [[255, 0, 0], [300, -1, 127.6]] })
    expect(pts).toEqual([
      { value: [0, 1, 2], itemStyle: { color: 'rgb(255,0,0)' } },
      { value: [3, 4, 5], itemStyle: { color: 'rgb(255,0,128)' } },
    ])
    expect(cloudPoints({ step: 0, wall_time: 0, vertices: [[1, 1, 1]], faces: null, colors: null })).toEqual([{ value: [1, 1, 1] }])
  })
})

describe('faceGrid', () => {
  const step = {
    step: 0,
    wall_time: 0,
    vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]],
    faces: [[0, 1, 2], [0, 2, 3], [0, 1, 9]],
    colors: null,
  }
  it('lays each face out as a quad (a b / c c) with a NaN column after it, skipping faces with a missing vertex', () => {
    const g = faceGrid(step)
    expect(g.faces).toBe(2)
    expect(g.dataShape).toEqual([2, 6])
    expect(g.data.length).toBe(12)
    expect(g.data.slice(0, 2)).toEqual([[0, 0, 0], [1, 0, 0]])
    expect(g.data.slice(6, 8)).toEqual([[0, 1, 0], [0, 1, 0]])
    expect((g.data[2] as number[]).every(Number.isNaN)).toBe(true)
    expect((g.data[11] as number[]).every(Number.isNaN)).toBe(true)
    expect(g.data.slice(3, 5)).toEqual([[0, 0, 0], [0, 1, 0]])
    expect(g.data.slice(9, 11)).toEqual([[0, 0, 1], [0, 0, 1]])
  })
  it('gives each corner its vertex colour', () => {
    const g = faceGrid({ ...step, faces: [[1, 2, 3]], colors: [[0, 0, 0], [255, 0, 0], [0, 255, 0], [0, 0, 300]] })
    expect(g.data).toEqual([
      { value: [1, 0, 0], itemStyle: { color: 'rgb(255,0,0)' } },
      { value: [0, 1, 0], itemStyle: { color: 'rgb(0,255,0)' } },
      [NaN, NaN, NaN],
      { value: [0, 0, 1], itemStyle: { color: 'rgb(0,0,255)' } },
      { value: [0, 0, 1], itemStyle: { color: 'rgb(0,0,255)' } },
      [NaN, NaN, NaN],
    ])
  })
  it('has no data without faces', () => {
    expect(faceGrid({ ...step, faces: null })).toEqual({ data: [], dataShape: [2, 0], faces: 0 })
  })
})

describe('cubeBounds', () => {
  it('is the smallest cube around the vertices', () => {
    expect(cubeBounds({ step: 0, wall_time: 0, vertices: [[0, 0, 0], [4, 2, 1]], faces: null, colors: null })).toEqual({
      min: [0, -1, -1.5],
      max: [4, 3, 2.5],
    })
    expect(cubeBounds({ step: 0, wall_time: 0, vertices: [], faces: null, colors: null })).toBeNull()
  })
})
