// The one Gantt (timeline-lane) renderer: bars [start, end) on category rows of a value x axis, as an ECharts custom
// series. Used by the profiler's timeline (trace events on process/thread lanes) and the old layout's step trace graph
// (a step's phases and reduce events). Each datum is [start, end, row, index]: `index` points back into the caller's
// bars, so colour, label and tooltip come from the caller; a bar is clipped to the grid and is at least 1 px wide.
import { echarts } from './echarts'

/** one bar: [start, end, row (the y category), index into the caller's bars] */
export type LaneBarDatum = [number, number, number, number]

export interface LaneBarsSpec {
  data: LaneBarDatum[]
  /** fill of the bar with this index */
  fill: (index: number) => string
  /** bar height: this share of a row, at least `minHeight` px */
  heightRatio: number
  minHeight: number
  /** series id (also its name) */
  id?: string
  /** a thin outline in this colour on bars wider than 3 px, so neighbours stay apart */
  outline?: string
  /** the outline of the bar under the pointer */
  emphasis?: string
  /** text inside bars wider than `labelMinWidth` px (truncated to the bar) */
  label?: (index: number) => string
  labelMinWidth?: number
}

export interface Rect {
  x: number
  y: number
  width: number
  height: number
}

/** What ECharts passes a custom series' renderItem (the parts used here). */
export interface LaneApi {
  value: (dim: number) => number
  coord: (v: number[]) => number[]
  size: (v: number[]) => number[]
}
export interface LaneParams {
  coordSys: Rect
}

/** The bar of one datum, clipped to the grid; null when it lies outside. */
export function laneBarRect(params: LaneParams, api: LaneApi, heightRatio: number, minHeight: number): Rect | null {
  const row = api.value(2)
  const s = api.coord([api.value(0), row])
  const e = api.coord([api.value(1), row])
  const h = Math.max(minHeight, api.size([0, 1])[1] * heightRatio)
  const cs = params.coordSys
  return (
    echarts.graphic.clipRectByRect(
      { x: s[0], y: s[1] - h / 2, width: Math.max(e[0] - s[0], 1), height: h },
      { x: cs.x, y: cs.y, width: cs.width, height: cs.height },
    ) ?? null
  )
}

export function laneBarsSeries(spec: LaneBarsSpec) {
  const labelMin = spec.labelMinWidth ?? 50
  return {
    ...(spec.id ? { id: spec.id, name: spec.id } : {}),
    type: 'custom' as const,
    encode: { x: [0, 1], y: 2 },
    clip: true,
    progressive: 0,
    renderItem: (params: LaneParams, api: LaneApi) => {
      const rect = laneBarRect(params, api, spec.heightRatio, spec.minHeight)
      if (!rect) return null
      const i = api.value(3)
      const out: Record<string, unknown> = {
        type: 'rect',
        transition: [],
        shape: rect,
        style: spec.outline
          ? { fill: spec.fill(i), stroke: spec.outline, lineWidth: rect.width > 3 ? 0.5 : 0 }
          : { fill: spec.fill(i) },
      }
      if (spec.emphasis) out.emphasis = { style: { stroke: spec.emphasis, lineWidth: 1 } }
      const text = spec.label && rect.width > labelMin ? spec.label(i) : ''
      if (text) {
        out.textContent = {
          type: 'text',
          style: { text, fill: '#fff', fontSize: 11, width: rect.width - 6, overflow: 'truncate' },
        }
        out.textConfig = { position: 'insideLeft', distance: 3 }
      }
      return out
    },
    data: spec.data,
  }
}
