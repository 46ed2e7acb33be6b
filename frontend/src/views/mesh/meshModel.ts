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
    if (rgb && rgb.length >= 3) point.itemStyle = { color: `rgb(${rgb.map((x) => Math.round(Math.max(0, Math.min(255, x)))).slice(0, 3).join(',')})` }
    return point
  })
}
