// Loss-landscape options: 2-D (isolines / topographic fill, with the training path) and 3-D
// (echarts-gl surface + path). Grid convention: z[i][j] is the loss at (x[j], y[i]) (numpy
// meshgrid order).
import type { Landscape } from '@/api/types'
import type { EChartsOption } from './echarts'
import { chartPalette, tooltipColors } from '@/lib/palette'
import { formatNumber } from '@/lib/format'

export type LandscapeMode = 'contour' | 'topo' | 'surface'

export const COLORMAPS: Record<string, string[]> = {
  jet: ['#00007f', '#0000ff', '#007fff', '#00ffff', '#7fff7f', '#ffff00', '#ff7f00', '#ff0000', '#7f0000'],
  viridis: ['#440154', '#472c7a', '#3b518b', '#2c718e', '#21908d', '#27ad81', '#5cc863', '#aadc32', '#fde725'],
  gray: ['#111111', '#555555', '#999999', '#dddddd'],
}

export interface Segment {
  x1: number
  y1: number
  x2: number
  y2: number
  level: number
}

/** Marching squares over a rectilinear grid; returns line segments for each level. */
export function isolines(xs: number[], ys: number[], z: number[][], levels: number[]): Segment[] {
  const out: Segment[] = []
  const ny = Math.min(ys.length, z.length)
  for (const L of levels) {
    for (let i = 0; i + 1 < ny; i++) {
      for (let j = 0; j + 1 < xs.length; j++) {
        const a = z[i][j] // (x_j, y_i)
        const b = z[i][j + 1] // (x_j+1, y_i)
        const c = z[i + 1][j + 1] // (x_j+1, y_i+1)
        const d = z[i + 1][j] // (x_j, y_i+1)
        if (![a, b, c, d].every(Number.isFinite)) continue
        const pts: [number, number][] = []
        const edge = (v1: number, v2: number, p1: [number, number], p2: [number, number]) => {
          if ((v1 < L && v2 >= L) || (v1 >= L && v2 < L)) {
            const f = (L - v1) / (v2 - v1)
            pts.push([p1[0] + f * (p2[0] - p1[0]), p1[1] + f * (p2[1] - p1[1])])
          }
        }
        const P00: [number, number] = [xs[j], ys[i]]
        const P10: [number, number] = [xs[j + 1], ys[i]]
        const P11: [number, number] = [xs[j + 1], ys[i + 1]]
        const P01: [number, number] = [xs[j], ys[i + 1]]
        edge(a, b, P00, P10)
        edge(b, c, P10, P11)
        edge(c, d, P11, P01)
        edge(d, a, P01, P00)
        for (let k = 0; k + 1 < pts.length; k += 2) {
          out.push({ x1: pts[k][0], y1: pts[k][1], x2: pts[k + 1][0], y2: pts[k + 1][1], level: L })
        }
      }
    }
  }
  return out
}

export function zExtent(z: number[][]): [number, number] {
  let lo = Infinity
  let hi = -Infinity
  for (const row of z) for (const v of row) if (Number.isFinite(v)) {
    lo = Math.min(lo, v)
    hi = Math.max(hi, v)
  }
  return Number.isFinite(lo) ? [lo, hi] : [0, 1]
}

export function buildLandscape2D(
  ls: Landscape,
  mode: 'contour' | 'topo',
  colormap: string,
  labels: { start: string; end: string; path: string },
): EChartsOption {
  const pal = chartPalette()
  const { x, y, z } = ls.points!
  const [lo, hi] = zExtent(z)
  const nLevels = 14
  const levels = Array.from({ length: nLevels }, (_, k) => lo + ((k + 0.5) * (hi - lo)) / nLevels)
  const segs = isolines(x, y, z, levels)
  const dx = x.length > 1 ? Math.abs(x[1] - x[0]) / 2 : 0.5
  const dy = y.length > 1 ? Math.abs(y[1] - y[0]) / 2 : 0.5
  // Topographic fill: the grid bilinearly upsampled K times, so the map is smooth.
  const K = x.length > 1 && y.length > 1 ? 4 : 1
  const cells: number[][] = []
  for (let i = 0; i < y.length; i++) {
    for (let j = 0; j < x.length; j++) {
      for (let a = 0; a < K; a++) {
        for (let b = 0; b < K; b++) {
          const fi = (a + 0.5) / K - 0.5
          const fj = (b + 0.5) / K - 0.5
          const i2 = Math.min(y.length - 1, Math.max(0, fi < 0 ? i - 1 : i + 1))
          const j2 = Math.min(x.length - 1, Math.max(0, fj < 0 ? j - 1 : j + 1))
          const wi = Math.abs(fi)
          const wj = Math.abs(fj)
          const v =
            (1 - wi) * (1 - wj) * z[i][j] + (1 - wi) * wj * z[i][j2] + wi * (1 - wj) * z[i2][j] + wi * wj * z[i2][j2]
          cells.push([x[j] + fj * 2 * dx * Math.sign(x[x.length - 1] - x[0] || 1), y[i] + fi * 2 * dy * Math.sign(y[y.length - 1] - y[0] || 1), v])
        }
      }
    }
  }
  const cdx = dx / K
  const cdy = dy / K
  const path = ls.path
  const axis = {
    type: 'value',
    scale: true,
    axisLine: { onZero: false, lineStyle: { color: pal.axis } },
    axisLabel: { color: pal.subtext, fontSize: 11, showMinLabel: false, showMaxLabel: false, formatter: (v: number) => formatNumber(v, 3) },
    splitLine: { show: false },
  }
  const series: unknown[] = [
    {
      type: 'custom',
      name: 'loss',
      data: mode === 'topo' ? cells : [],
      encode: { x: 0, y: 1 },
      renderItem: (_p: unknown, api: { value: (d: number) => number; coord: (v: number[]) => number[]; visual: (k: string) => string }) => {
        const p0 = api.coord([api.value(0) - cdx, api.value(1) - cdy])
        const p1 = api.coord([api.value(0) + cdx, api.value(1) + cdy])
        return {
          type: 'rect',
          shape: { x: Math.min(p0[0], p1[0]), y: Math.min(p0[1], p1[1]), width: Math.abs(p1[0] - p0[0]) + 0.5, height: Math.abs(p1[1] - p0[1]) + 0.5 },
          style: { fill: api.visual('color') },
        }
      },
      tooltip: { formatter: (p: { data: number[] }) => `x ${formatNumber(p.data[0], 4)}<br>y ${formatNumber(p.data[1], 4)}<br>loss <b>${formatNumber(p.data[2])}</b>` },
      z: 1,
    },
    {
      type: 'custom',
      name: 'isolines',
      data: segs.map((s) => [s.x1, s.y1, s.level, s.x2, s.y2]),
      encode: { x: [0, 3], y: [1, 4] },
      silent: true,
      renderItem: (_p: unknown, api: { value: (d: number) => number; coord: (v: number[]) => number[]; visual: (k: string) => string }) => {
        const a = api.coord([api.value(0), api.value(1)])
        const b = api.coord([api.value(3), api.value(4)])
        return {
          type: 'line',
          shape: { x1: a[0], y1: a[1], x2: b[0], y2: b[1] },
          style: { stroke: mode === 'topo' ? 'rgba(255,255,255,0.55)' : api.visual('color'), lineWidth: mode === 'topo' ? 0.8 : 1.4 },
        }
      },
      z: 2,
    },
  ]
  if (path) {
    series.push({
      type: 'line',
      id: 'path',
      name: labels.path,
      data: path2D(path, null),
      symbol: 'circle',
      symbolSize: 6,
      color: pal.text,
      lineStyle: { width: 2, color: pal.text },
      z: 5,
      tooltip: {
        formatter: (p: { data: number[] }) => `${labels.path} #${p.data[3]}<br>loss <b>${formatNumber(p.data[2])}</b>`,
      },
      markPoint: {
        symbol: 'pin',
        symbolSize: 40, // wide enough for "Start" and "End" inside the pin
        // the theme's text colour: a dark pin on the light theme, a light one on the dark theme (never dark on dark)
        label: { fontSize: 9, color: pal.background },
        itemStyle: { color: pal.text, borderColor: pal.background, borderWidth: 1 },
        data: [
          { coord: [path.x[0], path.y[0]], value: labels.start },
          { coord: [path.x[path.x.length - 1], path.y[path.y.length - 1]], value: labels.end },
        ],
      },
    })
    series.push({ type: 'scatter', id: 'head', name: labels.path, data: [], symbolSize: 14, z: 6, silent: true,
                  itemStyle: { color: '#ff3b30', borderColor: '#fff', borderWidth: 2 } })
  }
  return {
    animation: false,
    grid: { left: 8, right: 90, top: 24, bottom: 8, containLabel: true, show: true, borderColor: pal.axis },
    tooltip: { trigger: 'item', confine: true, ...tooltipColors(pal) },
    xAxis: { ...axis, min: Math.min(...x) - dx, max: Math.max(...x) + dx },
    yAxis: { ...axis, min: Math.min(...y) - dy, max: Math.max(...y) + dy },
    visualMap: {
      type: 'continuous',
      min: lo,
      max: hi,
      dimension: 2,
      seriesIndex: [0, 1],
      right: 6,
      top: 'middle',
      calculable: false,
      itemHeight: 200,
      text: [formatNumber(hi, 5), formatNumber(lo, 5)],
      precision: 4,
      textStyle: { color: pal.subtext, fontSize: 10 },
      inRange: { color: COLORMAPS[colormap] ?? COLORMAPS.jet },
    },
    series,
  }
}

export function buildLandscape3D(
  ls: Landscape,
  colormap: string,
  opacity: number,
  labels: { start: string; end: string; path: string },
): EChartsOption {
  const pal = chartPalette()
  const { x, y, z } = ls.points!
  const [lo, hi] = zExtent(z)
  const data: number[][] = []
  for (let i = 0; i < y.length; i++) for (let j = 0; j < x.length; j++) data.push([x[j], y[i], z[i]?.[j] ?? NaN])
  const axis3d = {
    type: 'value',
    axisLine: { lineStyle: { color: pal.axis } },
    axisLabel: { margin: 10, textStyle: { color: pal.subtext }, formatter: (v: number) => formatNumber(v, 3) },
    splitLine: { lineStyle: { color: pal.split } },
  }
  const path = ls.path
  const series: unknown[] = [
    {
      type: 'surface',
      name: 'loss',
      data,
      dataShape: [y.length, x.length],
      shading: 'color',
      wireframe: { show: true, lineStyle: { color: 'rgba(0,0,0,0.25)', width: 0.6 } },
      itemStyle: { opacity },
    },
  ]
  if (path) {
    series.push({
      type: 'line3D',
      id: 'path',
      name: labels.path,
      data: path3D(path, null),
      lineStyle: { width: 4, color: pal.text },
    })
    // Start and End as pins standing above the surface (a path point lies on or under it, where the surface
    // hid its marker): a stem from the point up to a labelled head higher than the surface around it.
    const lift = (hi - lo || 1) * 0.12
    const last = path.x.length - 1
    const pins = [
      { at: 0, text: labels.start, id: 'start' },
      { at: last, text: labels.end, id: 'end' },
    ].map((p) => {
      const [px, py, pz] = [path.x[p.at], path.y[p.at], path.z[p.at]]
      return { ...p, foot: [px, py, pz], head: [px, py, Math.max(pz, surfaceTopAt(ls.points!, px, py)) + lift] }
    })
    for (const p of pins) {
      series.push({ type: 'line3D', id: `pin:${p.id}`, name: labels.path, data: [p.foot, p.head], lineStyle: { width: 2, color: pal.text }, silent: true })
    }
    series.push({
      type: 'scatter3D',
      id: 'pins',
      name: labels.path,
      symbolSize: 12,
      itemStyle: { color: pal.text, borderColor: pal.background, borderWidth: 1 },
      label: {
        show: true,
        position: 'top',
        distance: 6,
        formatter: (p: { dataIndex: number }) => pins[p.dataIndex]?.text ?? '',
        textStyle: { color: pal.background, backgroundColor: pal.text, padding: [2, 5], borderRadius: 3, fontSize: 12 },
      },
      data: pins.map((p) => ({ name: p.text, value: p.head })),
    })
    series.push({ type: 'scatter3D', id: 'head', name: labels.path, data: [], symbolSize: 16,
                  itemStyle: { color: '#ff3b30', borderColor: '#fff', borderWidth: 1 } })
  }
  return {
    tooltip: {},
    visualMap: {
      type: 'continuous',
      min: lo,
      max: hi,
      dimension: 2,
      seriesIndex: [0],
      right: 6,
      top: 'middle',
      itemHeight: 200,
      text: [formatNumber(hi, 5), formatNumber(lo, 5)],
      precision: 4,
      textStyle: { color: pal.subtext, fontSize: 10 },
      inRange: { color: COLORMAPS[colormap] ?? COLORMAPS.jet },
    },
    xAxis3D: { ...axis3d, name: 'x', nameGap: 30 },
    yAxis3D: { ...axis3d, name: 'y', nameGap: 30 },
    // the z range left to the axis (nice ticks only: a forced min/max adds odd labels over its neighbours)
    zAxis3D: {
      ...axis3d,
      name: 'loss',
      scale: true,
      nameGap: 58,
      splitNumber: 4,
      axisLabel: { ...axis3d.axisLabel, margin: 28, formatter: (v: number) => formatNumber(v, 5) },
    },
    grid3D: {
      boxWidth: 100,
      boxDepth: 100,
      boxHeight: 70,
      viewControl: { alpha: 25, beta: 40, distance: 220 },
      light: { main: { intensity: 1.1 }, ambient: { intensity: 0.4 } },
      axisPointer: { show: false },
    },
    series,
  }
}

// ------------------------------------------------------------------ training-track animation
type LandscapePath = NonNullable<Landscape['path']>

/**
 * The path up to animation time `t` (0 = start, n-1 = end; null = the whole path): the points
 * passed so far plus one interpolated between the last passed and the next (the moving head).
 */
export function trackPoints(path: LandscapePath, t: number | null): { x: number; y: number; z: number; interval: number }[] {
  const n = Math.min(path.x.length, path.y.length, path.z.length)
  const at = (k: number) => ({ x: path.x[k], y: path.y[k], z: path.z[k], interval: path.intervals[k] ?? k })
  if (t === null || t >= n - 1) return Array.from({ length: n }, (_, k) => at(k))
  const lo = Math.max(0, Math.floor(t))
  const f = Math.max(0, t) - lo
  const out = Array.from({ length: lo + 1 }, (_, k) => at(k))
  if (f > 0 && lo + 1 < n) {
    const a = at(lo)
    const b = at(lo + 1)
    out.push({ x: a.x + f * (b.x - a.x), y: a.y + f * (b.y - a.y), z: a.z + f * (b.z - a.z), interval: a.interval })
  }
  return out
}

export function path2D(path: LandscapePath, t: number | null): number[][] {
  return trackPoints(path, t).map((p) => [p.x, p.y, p.z, p.interval])
}

export function path3D(path: LandscapePath, t: number | null): number[][] {
  return trackPoints(path, t).map((p) => [p.x, p.y, p.z])
}

/** Series updates (merged by id) that draw the track at time `t`; null = the whole path, no head. */
export function trackUpdate(path: LandscapePath, t: number | null, mode: LandscapeMode): EChartsOption {
  const pts = mode === 'surface' ? path3D(path, t) : path2D(path, t)
  const head = t === null ? [] : [mode === 'surface' ? pts[pts.length - 1] : pts[pts.length - 1].slice(0, 2)]
  return { series: [{ id: 'path', data: pts }, { id: 'head', data: head }] }
}

/**
 * The highest surface value at (px, py): the largest z of the grid cell holding the point (the nearest edge cell
 * outside the grid), so a marker above it clears the surface there whatever the interpolation. NaN cells are
 * skipped; -Infinity when there is no value.
 */
export function surfaceTopAt(points: NonNullable<Landscape['points']>, px: number, py: number): number {
  const { x, y, z } = points
  const cell = (axis: number[], v: number): [number, number] => {
    if (axis.length < 2) return [0, 0]
    const asc = axis[axis.length - 1] >= axis[0]
    let k = 0
    while (k < axis.length - 2 && (asc ? axis[k + 1] < v : axis[k + 1] > v)) k++
    return [k, k + 1]
  }
  const [j0, j1] = cell(x, px)
  const [i0, i1] = cell(y, py)
  let top = -Infinity
  for (const i of [i0, i1]) for (const j of [j0, j1]) {
    const v = z[i]?.[j]
    if (typeof v === 'number' && Number.isFinite(v)) top = Math.max(top, v)
  }
  return top
}
