import { describe, expect, it } from 'vitest'
import { cloudPoints, meshNames } from './meshModel'

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
