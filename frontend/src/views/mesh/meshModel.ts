// Meshes of a run: the tags tensorboardX add_mesh writes (`<name>_1/_2/_3`, TensorBoard's own writer
// `_VERTEX/_FACE/_COLOR`) grouped by mesh name, and one step's vertices as a coloured point cloud.
import type { MeshStep } from '@/api/types'

const COMPONENT = /_(1|2|3|VERTEX|FACE|COLOR)$/

/** mesh name -> its first tag (any component tag answers the whole mesh). */
export function meshNames(tags: string[]): Map<string, string> {
  const out = new Map<string, string>()
  for (const tag of tags) {
    const name = tag.replace(COMPONENT, '')
    if (!out.has(name)) out.set(name, tag)
  }
  return out
}

export interface CloudPoint {
  value: [number, number, number]
  itemStyle?: { color: string }
}

/** The vertices of a step as points, each coloured by its colour (0-255 RGB) when the mesh has colours. */
export function cloudPoints(step: MeshStep): CloudPoint[] {
  const v = step.vertices ?? []
  const c = step.colors
  return v.map((p, i) => {
    const point: CloudPoint = { value: [p[0], p[1], p[2]] }
    const rgb = c?.[i]
    if (rgb && rgb.length >= 3) point.itemStyle = { color: rgbString(rgb) }
    return point
  })
}

export type FaceCell = { value: [number, number, number]; itemStyle?: { color: string } } | [number, number, number]

export interface FaceGrid {
  /** echarts-gl `surface` data, row-major over `dataShape` */
  data: FaceCell[]
  /** [rows, columns] of the surface grid: 2 rows, 3 columns a face (2 for the last) */
  dataShape: [number, number]
  /** faces drawn (those whose three indices name vertices) */
  faces: number
}

/**
 * The faces of a step as one echarts-gl `surface`, which draws a grid of quads, each as the triangles
 * (top[j+1], bottom[j+1], top[j]) and (top[j], bottom[j+1], bottom[j]). Face (a, b, c) is the column pair
 * (a|c) (b|c) (top|bottom): its quad's first triangle is (b, c, a), the second (a, c, c) has no area. A third
 * column (c'|b), c' the next face's third corner, makes the quads joining it to the next face's (a'|c') empty
 * too: (c', b, b), (b, b, c), then (a', c', c'), (c', c', b). So 2 rows x (3F - 1) columns, no NaN (which would
 * make the surface split every quad into 4 vertices of its own): the vertex count stays 6 a face. Each corner
 * is its vertex in its colour (interpolated across the face); faces naming a missing vertex are left out.
 */
export function faceGrid(step: MeshStep): FaceGrid {
  const v = step.vertices ?? []
  const c = step.colors
  const cell = (i: number): FaceCell => {
    const p = v[i]
    const rgb = c?.[i]
    if (rgb && rgb.length >= 3) return { value: [p[0], p[1], p[2]], itemStyle: { color: rgbString(rgb) } }
    return [p[0], p[1], p[2]]
  }
  const ok = (i: number) => i >= 0 && i < v.length && v[i]?.length >= 3 && v[i].slice(0, 3).every(Number.isFinite)
  const faces: number[][] = []
  for (const f of step.faces ?? []) {
    const idx = f.slice(0, 3).map((x) => Math.round(x))
    if (idx.length === 3 && idx.every(ok)) faces.push(idx)
  }
  const top: FaceCell[] = []
  const bottom: FaceCell[] = []
  faces.forEach(([a, b, cc], k) => {
    top.push(cell(a), cell(b))
    bottom.push(cell(cc), cell(cc))
    if (k + 1 < faces.length) {
      top.push(cell(faces[k + 1][2]))
      bottom.push(cell(b))
    }
  })
  return { data: [...top, ...bottom], dataShape: [2, top.length], faces: faces.length }
}

function rgbString(rgb: number[]): string {
  return `rgb(${rgb.map((x) => Math.round(Math.max(0, Math.min(255, x)))).slice(0, 3).join(',')})`
}

/** The smallest cube around the vertices ([min, max] per axis, one common side) so the mesh keeps its proportions. */
export function cubeBounds(step: MeshStep): { min: number[]; max: number[] } | null {
  const lo = [Infinity, Infinity, Infinity]
  const hi = [-Infinity, -Infinity, -Infinity]
  for (const p of step.vertices ?? []) {
    if (p.length < 3 || !p.slice(0, 3).every(Number.isFinite)) continue
    for (let k = 0; k < 3; k++) {
      lo[k] = Math.min(lo[k], p[k])
      hi[k] = Math.max(hi[k], p[k])
    }
  }
  if (!Number.isFinite(lo[0])) return null
  const half = Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], 1e-9) / 2
  const mid = hi.map((h, k) => (h + lo[k]) / 2)
  return { min: mid.map((m) => m - half), max: mid.map((m) => m + half) }
}
