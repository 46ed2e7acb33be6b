// The ECharts option of the projector's scatter, 2-D (ECharts scatter) or 3-D (echarts-gl scatter3D in a grid3D,
// drag to rotate): one series per category (so the legend toggles them), or one series on a continuous colour
// scale, plus the search matches, the selected point's neighbours and the selected point drawn on top.
// Each datum is [x, y, point index] in 2-D, [x, y, z, point index] in 3-D (pointIndexOf reads it back).
// Above LARGE points the 2-D series use ECharts' large mode (one draw call).
import type { EChartsOption } from '@/charts/echarts'
import { chartPalette, tooltipColors } from '@/lib/palette'
import type { Coloring } from './projection'

export const LARGE = 4000

export interface ScatterInput {
  coords: Float64Array
  /** index into the embedding's points of each projected point */
  points: number[]
  coloring: Coloring
  matches: Set<number>
  selected: number | null
  /** the selected point's nearest neighbours in the original space, ringed on the chart */
  neighbours?: Set<number>
  tooltip: (point: number) => string
  labels: { points: string; matches: string; neighbours?: string }
  /** coordinates per point in `coords` (default 2) */
  dims?: 2 | 3
}

/** The point index of a datum of a chart drawn with `dims` coordinates. */
export function pointIndexOf(d: unknown, dims: 2 | 3): number | null {
  return Array.isArray(d) && d.length > dims && typeof d[dims] === 'number' ? d[dims] : null
}

export interface SeriesInfo {
  name: string
  points: number
  color: string
}

export function buildProjectorOption(inp: ScatterInput): { option: EChartsOption; series: SeriesInfo[] } {
  const pal = chartPalette()
  const n = inp.points.length
  const dims = inp.dims ?? 2
  const gl = dims === 3
  const large = !gl && n > LARGE
  const type = gl ? 'scatter3D' : 'scatter'
  const datum = gl
    ? (k: number) => [inp.coords[3 * k], inp.coords[3 * k + 1], inp.coords[3 * k + 2], inp.points[k]]
    : (k: number) => [inp.coords[2 * k], inp.coords[2 * k + 1], inp.points[k]]
  const base = gl
    ? { type, symbolSize: n > 5000 ? 3 : n > 1000 ? 5 : 8, animation: false }
    : {
        type,
        symbolSize: n > 5000 ? 3 : n > 1000 ? 5 : 8,
        large,
        largeThreshold: LARGE,
        progressive: 0,
        animation: false,
        emphasis: { scale: 1.8 },
      }
  const series: Record<string, unknown>[] = []
  const info: SeriesInfo[] = []
  const c = inp.coloring
  if (c.kind === 'category') {
    const groups: number[][] = c.categories.map(() => [])
    for (let k = 0; k < n; k++) groups[c.index[inp.points[k]]]?.push(k)
    c.categories.forEach((cat, i) => {
      series.push({ ...base, id: `cat:${i}`, name: cat === '' ? '∅' : cat, color: c.colors[i], data: groups[i].map(datum) })
      info.push({ name: cat, points: groups[i].length, color: c.colors[i] })
    })
  } else {
    const data = Array.from({ length: n }, (_, k) => {
      const d = datum(k)
      return c.kind === 'number' ? [...d, c.values[inp.points[k]]] : d
    })
    series.push({ ...base, id: 'points', name: inp.labels.points, color: pal.series[0], data })
    info.push({ name: inp.labels.points, points: n, color: pal.series[0] })
  }
  const byPoint = new Map(inp.points.map((p, k) => [p, k]))
  const matchData = [...inp.matches].flatMap((p) => (byPoint.has(p) ? [datum(byPoint.get(p)!)] : []))
  series.push({
    id: 'matches',
    name: inp.labels.matches,
    type,
    data: matchData,
    symbolSize: 11,
    itemStyle: { color: 'transparent', borderColor: pal.text, borderWidth: 1.5 },
    animation: false,
    z: 5,
  })
  const near = [...(inp.neighbours ?? [])].flatMap((p) => (byPoint.has(p) ? [datum(byPoint.get(p)!)] : []))
  series.push({
    id: 'neighbours',
    name: inp.labels.neighbours ?? 'neighbours',
    type,
    data: near,
    symbolSize: 13,
    itemStyle: { color: 'transparent', borderColor: '#e8443a', borderWidth: 2 },
    animation: false,
    z: 5,
  })
  const sel = inp.selected !== null && byPoint.has(inp.selected) ? [datum(byPoint.get(inp.selected)!)] : []
  series.push({
    id: 'selected',
    type,
    data: sel,
    symbol: 'diamond',
    symbolSize: 16,
    itemStyle: { color: '#e8443a', borderColor: '#fff', borderWidth: 1 },
    animation: false,
    z: 6,
  })

  const axis = { type: 'value', scale: true, show: false }
  const axis3D = { type: 'value', scale: true, name: '', axisLabel: { show: false }, axisTick: { show: false }, splitLine: { show: false } }
  const frame: EChartsOption = gl
    ? {
        xAxis3D: axis3D,
        yAxis3D: axis3D,
        zAxis3D: axis3D,
        grid3D: {
          top: c.kind === 'category' ? 30 : 0,
          right: c.kind === 'number' ? 70 : 0,
          axisLine: { lineStyle: { color: pal.split } },
          axisPointer: { show: false },
          viewControl: { alpha: 20, beta: 30, distance: 250 },
        },
      }
    : {
        grid: { left: 8, right: c.kind === 'number' ? 70 : 8, top: c.kind === 'category' ? 34 : 8, bottom: 8 },
        xAxis: axis,
        yAxis: axis,
        dataZoom: [
          { type: 'inside', xAxisIndex: 0, filterMode: 'none' },
          { type: 'inside', yAxisIndex: 0, filterMode: 'none' },
        ],
      }
  const option: EChartsOption = {
    animation: false,
    backgroundColor: 'transparent',
    textStyle: { fontFamily: 'inherit' },
    ...frame,
    legend:
      c.kind === 'category'
        ? { type: 'scroll', top: 0, data: series.filter((s) => String(s.id).startsWith('cat:')).map((s) => s.name as string), textStyle: { color: pal.subtext, fontSize: 11 } }
        : { show: false },
    visualMap:
      c.kind === 'number'
        ? {
            type: 'continuous',
            min: c.min,
            max: c.max,
            dimension: dims + 1,
            seriesIndex: 0,
            right: 4,
            top: 'middle',
            calculable: true,
            inRange: { color: ['#5b8ff9', '#5ad8a6', '#f6bd16', '#e8684a'] },
            textStyle: { color: pal.subtext },
          }
        : undefined,
    tooltip: {
      trigger: 'item',
      confine: true,
      className: 'chart-tooltip',
      ...tooltipColors(pal, 12),
      formatter: (raw: unknown) => {
        const i = pointIndexOf((raw as { data?: unknown }).data, dims)
        return i === null ? '' : inp.tooltip(i)
      },
    },
    series,
  }
  return { option, series: info }
}
