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
  /** the triangles the surface draws from a 2-row grid (echarts-gl SurfaceView's quad split), without the empty ones */
  function drawn(g: ReturnType<typeof faceGrid>): number[][][] {
    const [, cols] = g.dataShape
    const at = (r: number, j: number) => {
      const d = g.data[r * cols + j]
      return Array.isArray(d) ? d : d.value
    }
    const out: number[][][] = []
    for (let j = 0; j + 1 < cols; j++) {
      for (const tri of [[at(0, j + 1), at(1, j + 1), at(0, j)], [at(0, j), at(1, j + 1), at(1, j)]]) {
        const [p, q, r] = tri
        const u = [q[0] - p[0], q[1] - p[1], q[2] - p[2]]
        const w = [r[0] - p[0], r[1] - p[1], r[2] - p[2]]
        const cross = [u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]]
        if (cross.some((x) => Math.abs(x) > 1e-12)) out.push(tri)
      }
    }
    return out
  }
  const sorted = (tri: number[][]) => tri.map((p) => p.join(',')).sort()

  it('draws exactly the faces (each once, nothing between them), skipping faces with a missing vertex', () => {
    const g = faceGrid(step)
    expect(g.faces).toBe(2)
    expect(g.dataShape).toEqual([2, 5])
    expect(g.data.length).toBe(10)
    expect(drawn(g).map(sorted)).toEqual([
      sorted([[0, 0, 0], [1, 0, 0], [0, 1, 0]]),
      sorted([[0, 0, 0], [0, 1, 0], [0, 0, 1]]),
    ])
  })
  it('draws every face of a bigger mesh and nothing else', () => {
    const vertices = Array.from({ length: 30 }, (_, i) => [Math.cos(i), Math.sin(i * 1.3), i / 7])
    const faces = Array.from({ length: 40 }, (_, k) => [k % 30, (k * 7 + 1) % 30, (k * 11 + 2) % 30]).filter((f) => new Set(f).size === 3)
    const g = faceGrid({ step: 0, wall_time: 0, vertices, faces, colors: null })
    expect(g.faces).toBe(faces.length)
    expect(g.dataShape).toEqual([2, 3 * faces.length - 1])
    expect(drawn(g).map(sorted)).toEqual(faces.map((f) => sorted(f.map((i) => vertices[i]))))
  })
  it('gives each corner its vertex colour', () => {
    const g = faceGrid({ ...step, faces: [[1, 2, 3]], colors: [[0, 0, 0], [255, 0, 0], [0, 255, 0], [0, 0, 300]] })
    expect(g.data).toEqual([
      { value: [1, 0, 0], itemStyle: { color: 'rgb(255,0,0)' } },
      { value: [0, 1, 0], itemStyle: { color: 'rgb(0,255,0)' } },
      { value: [0, 0, 1], itemStyle: { color: 'rgb(0,0,255)' } },
      { value: [0, 0, 1], itemStyle: { color: 'rgb(0,0,255)' } },
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
