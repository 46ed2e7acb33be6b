// Builds the ECharts option of a scalar chart (one or more lines, each drawn as a faded raw
// line under its smoothed line). Shared by the Scalars view, the comparison dashboard and the
// training dashboard card.
import type { ScalarEnvelopeBucket, ScalarPoint } from '@/api/types'
import type { EChartsOption } from './echarts'
import type { SeriesSummary } from '@/composables/useChart'
import { chartPalette, tooltipColors } from '@/lib/palette'
import { defaultScale, smooth, smoothWindow } from '@/lib/smoothing'
import { escapeHtml, formatDuration, formatNumber, formatTick, formatWallTime } from '@/lib/format'
import { clockFormatter, spacedTickFormatter } from '@/lib/axisFormat'
import { textWidth } from '@/lib/wrapText'
import { edgeAwareLabels } from './axisEdges'
import { csvRow } from '@/lib/csv'

/** `samples`: the step of a metric's `vs samples` twin (consumed samples), drawn like a step axis. */
export type XMode = 'step' | 'relative' | 'absolute' | 'samples'
export const X_MODES: readonly XMode[] = ['step', 'relative', 'absolute']
/** The Scalars page's modes: the time modes, and `samples` for a run with `vs samples` twins. */
export const SCALAR_X_MODES: readonly XMode[] = [...X_MODES, 'samples']

/** Whether x is the point's step (step, or the samples count a twin writes as its step). */
export function stepLike(xMode: XMode): boolean {
  return xMode === 'step' || xMode === 'samples'
}

export interface ScalarLine {
  key: string
  name: string
  color: string
  points: ScalarPoint[]
  /** Server min/max envelope over every recorded value (scalar/metadata?downsample=N). */
  envelope?: ScalarEnvelopeBucket[]
}

/** One envelope bucket placed on the x axis: [x0, x1] with the min and max of its values. */
export interface BandRect {
  x0: number
  x1: number
  min: number
  max: number
}

export interface PreparedPoint {
  step: number
  wall_time: number
  x: number
  value: number | null
  smoothed: number | null
}

export interface PreparedLine {
  line: ScalarLine
  points: PreparedPoint[]
  band: BandRect[]
}

/** The real points of a zoomed step window for one line (scalar/metadata?start_step=&end_step=&points=). */
export interface WindowAnswer {
  points: ScalarPoint[]
  /** real points of the series inside the window, before the server's reduction */
  total: number
  /** false: the server has no full-resolution series and answered from its sample (window.exact) */
  exact?: boolean
  /** why not exact (window.reason): 'disk_full', 'write_failed', 'no_store' */
  reason?: string
}

export interface Zoom {
  x: [number, number]
  y: [number, number]
}

const THRESHOLD_COLOR = '#e8443a'

interface BandApi {
  value: (i: number) => number
  coord: (v: number[]) => number[]
}

export interface ScalarChartSettings {
  xMode: XMode
  smoothing: number
  logY: boolean
  showRaw: boolean
  zoom: Zoom | null
  labels: { step: string; value: string; smoothed: string; time: string; relative: string }
  compact?: boolean
  showLegend?: boolean
  /** Draw the envelope band of each line (when it has one). */
  showBand?: boolean
  /** A horizontal threshold line; the raw points above it are marked. */
  threshold?: number | null
  /** Two lines on two y axes (left / right), as MindInsight's dashboard card does. */
  dualY?: boolean
  /** The chart's width in px: lays the legend out in as many rows as its names need. */
  width?: number
}

const LEGEND_FONT = 11
const LEGEND_ROW = 18 // px a legend row takes
const LEGEND_MAX_ROWS = 4 // more rows than this (e.g. 32 ranks): the legend pages instead of pushing the plot down

/**
 * Rows a plain (wrapping) legend of `names` takes in `width` px: each item is its 12 px icon, a 5 px gap and
 * its text, items 10 px apart, as ECharts lays them out. `measure` gives a text's width in px.
 */
export function legendRows(names: readonly string[], width: number, measure: (text: string) => number): number {
  let rows = 1
  let used = 0
  for (const name of names) {
    const item = 12 + 5 + measure(name)
    if (used > 0 && used + 10 + item > width) {
      rows++
      used = item
    } else {
      used += (used > 0 ? 10 : 0) + item
    }
  }
  return rows
}

/**
 * Computes x positions and smoothed values. Smoothing is by step distance, with one scale for all lines.
 * `whole`: when `lines` hold a zoomed window's points, the whole series (same order): the scale is theirs and
 * each window continues its series' average, so zooming only magnifies the curve (and exports the same values).
 */
export function prepareLines(lines: ScalarLine[], xMode: XMode, smoothing: number, whole?: ScalarLine[]): PreparedLine[] {
  const allSteps: number[] = []
  for (const l of whole ?? lines) for (const p of l.points) allSteps.push(p.step)
  const scale = defaultScale(allSteps)
  return lines.map((line, li) => {
    const pts = line.points
    const t0 = pts.length ? pts[0].wall_time : 0
    const full = whole?.[li]
    const steps = pts.map((p) => p.step)
    const values = pts.map((p) => p.value)
    const sm =
      full && full.points !== pts
        ? smoothWindow(full.points.map((p) => p.step), full.points.map((p) => p.value), steps, values, smoothing, scale)
        : smooth(steps, values, smoothing, scale)
    const points = pts.map((p, i) => ({
        step: p.step,
        wall_time: p.wall_time,
        x: stepLike(xMode) ? p.step : xMode === 'relative' ? p.wall_time - t0 : p.wall_time * 1000,
        value: p.value,
        smoothed: sm[i],
      }))
    return { line, points, band: placeBand(line.envelope ?? [], points, xMode) }
  })
}

/** x of a step: exact in step mode, else interpolated between the sampled points around it. */
function stepToX(step: number, points: PreparedPoint[]): number {
  let lo = 0
  let hi = points.length - 1
  if (step <= points[0].step) return points[0].x
  if (step >= points[hi].step) return points[hi].x
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1
    if (points[mid].step <= step) lo = mid
    else hi = mid
  }
  const a = points[lo]
  const b = points[hi]
  return a.x + ((b.x - a.x) * (step - a.step)) / (b.step - a.step || 1)
}

/** The band of a custom-scalars margin line: at each step its lower to its upper value, spanning half the way to
 * the steps either side, so the band is centred on the line's point (the first and last end at their step). */
export function marginBand(lower: ScalarPoint[], upper: ScalarPoint[]): ScalarEnvelopeBucket[] {
  const up = new Map(upper.map((p) => [p.step, p.value]))
  const lo = lower.filter((p) => p.value !== null && up.get(p.step) != null)
  return lo.map((p, i) => ({
    step_start: i > 0 ? (lo[i - 1].step + p.step) / 2 : p.step,
    step_end: i + 1 < lo.length ? (p.step + lo[i + 1].step) / 2 : p.step,
    min: p.value,
    max: up.get(p.step) ?? null,
    count: 1,
  }))
}

export function placeBand(envelope: ScalarEnvelopeBucket[], points: PreparedPoint[], xMode: XMode): BandRect[] {
  if (!envelope.length || !points.length) return []
  const first = points[0].step
  const last = points[points.length - 1].step
  const out: BandRect[] = []
  for (const b of envelope) {
    if (b.min === null || b.max === null || !b.count) continue
    const s0 = Math.max(first, b.step_start)
    const s1 = Math.min(last, b.step_end)
    if (s1 < s0) continue
    const x0 = stepLike(xMode) ? s0 : stepToX(s0, points)
    const x1 = stepLike(xMode) ? s1 : stepToX(s1, points)
    out.push({ x0, x1, min: b.min, max: b.max })
  }
  return out
}

/** Raw points strictly above the threshold. */
export function aboveThreshold(prepared: PreparedLine[], threshold: number | null | undefined): number {
  if (threshold === null || threshold === undefined || !Number.isFinite(threshold)) return 0
  let n = 0
  for (const { points } of prepared) for (const p of points) if (p.value !== null && p.value > threshold) n++
  return n
}

function logSafe(v: number | null, log: boolean): number | null {
  if (v === null) return null
  return log && v <= 0 ? null : v
}

export function summarize(prepared: PreparedLine[]): SeriesSummary[] {
  return prepared.map(({ line, points }) => {
    const last = points[points.length - 1]
    return {
      name: line.name,
      points: points.length,
      lastX: last ? last.step : null,
      lastY: last ? last.value : null,
      lastSmoothedY: last ? last.smoothed : null,
      color: line.color,
    }
  })
}

/** A series with at most this many points is drawn with its markers. */
export const SPARSE_POINTS = 20

/** The y extent shown on axis `axis` (all lines, or line `axis` of a dual axis; the zoom window on the left). */
function yExtent(prepared: PreparedLine[], axis: number, dual: boolean, zoom: Zoom | null | undefined, raw: boolean): number {
  if (zoom && axis === 0) return Math.abs(zoom.y[1] - zoom.y[0])
  let lo = Infinity
  let hi = -Infinity
  for (const [i, { points }] of prepared.entries()) {
    if (dual && i !== axis) continue
    for (const p of points)
      for (const v of raw ? [p.value, p.smoothed] : [p.smoothed])
        if (v !== null && Number.isFinite(v)) [lo, hi] = [Math.min(lo, v), Math.max(hi, v)]
  }
  return hi > lo ? hi - lo : 0
}

export function buildScalarOption(prepared: PreparedLine[], s: ScalarChartSettings): EChartsOption {
  const pal = chartPalette()
  const multi = prepared.length > 1
  const dual = !!s.dualY && prepared.length === 2
  const series: unknown[] = []
  for (const [index, { line, points, band }] of prepared.entries()) {
    // a sparse series (a few points) shows its points: a 2-point line alone hides that there are only two
    const single = points.length <= SPARSE_POINTS
    const yAxisIndex = dual ? index : 0
    if (s.showBand && band.length) {
      const rects = s.logY ? band.filter((b) => b.min > 0) : band
      series.push({
        id: `band:${line.key}`,
        name: line.name,
        type: 'custom',
        yAxisIndex,
        silent: true,
        clip: true,
        z: 0,
        data: rects.map((b) => [b.x0, b.x1, b.min, b.max]),
        encode: { x: [0, 1], y: [2, 3] },
        renderItem: (_params: unknown, api: BandApi) => {
          const p0 = api.coord([api.value(0), api.value(3)])
          const p1 = api.coord([api.value(1), api.value(2)])
          return {
            type: 'rect',
            shape: { x: p0[0], y: p0[1], width: Math.max(1, p1[0] - p0[0]), height: Math.max(1, p1[1] - p0[1]) },
            style: { fill: line.color, opacity: 0.16 },
          }
        },
        tooltip: { show: false },
        animation: false,
      })
    }
    series.push({
      id: `sm:${line.key}`,
      name: line.name,
      type: 'line',
      yAxisIndex,
      data: points.map((p) => [p.x, logSafe(p.smoothed, s.logY), p.step, p.wall_time, p.value]),
      showSymbol: single,
      symbolSize: 6,
      color: line.color,
      lineStyle: { width: s.compact ? 1.5 : 1.8 },
      emphasis: { focus: multi ? 'series' : 'none', lineStyle: { width: 2.4 } },
      z: 2,
      animation: false,
    })
    series.push({
      id: `raw:${line.key}`,
      name: line.name,
      type: 'line',
      yAxisIndex,
      data: s.showRaw ? points.map((p) => [p.x, logSafe(p.value, s.logY), p.step, p.wall_time]) : [],
      showSymbol: single,
      symbolSize: 5,
      color: line.color,
      lineStyle: { width: 1, opacity: 0.28 },
      itemStyle: { opacity: 0.3 },
      emphasis: { disabled: true },
      tooltip: { show: false },
      z: 1,
      animation: false,
    })
  }

  const th = s.threshold
  if (th !== null && th !== undefined && Number.isFinite(th) && !(s.logY && th <= 0)) {
    let x0 = Infinity
    let x1 = -Infinity
    const marks: [number, number][] = []
    for (const { points } of prepared)
      for (const p of points) {
        x0 = Math.min(x0, p.x)
        x1 = Math.max(x1, p.x)
        if (p.value !== null && p.value > th) marks.push([p.x, p.value])
      }
    if (x1 >= x0) {
      series.push({
        id: 'threshold',
        name: 'threshold',
        type: 'line',
        data: [
          [x0, th],
          [x1, th],
        ],
        showSymbol: false,
        color: THRESHOLD_COLOR,
        lineStyle: { type: 'dashed', width: 1.2 },
        silent: true,
        tooltip: { show: false },
        z: 3,
        animation: false,
      })
      series.push({
        id: 'threshold-marks',
        name: 'threshold-marks',
        type: 'scatter',
        data: marks,
        symbolSize: 5,
        color: THRESHOLD_COLOR,
        silent: true,
        tooltip: { show: false },
        z: 4,
        animation: false,
      })
    }
  }

  const axisCommon = {
    axisLine: { onZero: false, lineStyle: { color: pal.axis } },
    axisTick: { lineStyle: { color: pal.axis } },
    axisLabel: { color: pal.subtext, fontSize: 11, hideOverlap: true },
    splitLine: { lineStyle: { color: pal.split } },
  }
  const z = s.zoom
  const zoomNone = { start: 0, end: 100 }
  // Un-zoomed step / relative axes span the data exactly: ends that would crowd a tick lose their label.
  let x0 = Infinity
  let x1 = -Infinity
  if (!z && s.xMode !== 'absolute') for (const { points } of prepared) for (const p of points) [x0, x1] = [Math.min(x0, p.x), Math.max(x1, p.x)]
  const stepFormat = s.xMode === 'relative' ? (v: number) => formatDuration(v) : stepTickFormatter(z ? z.x[1] - z.x[0] : null)
  const xEdges = x1 > x0 ? edgeAwareLabels(x0, x1, stepFormat) : null
  const insideCommon = {
    type: 'inside',
    // Zoom is driven only by the box-zoom brush and the toolbar buttons (no wheel/drag).
    disabled: true,
    filterMode: 'none',
    zoomOnMouseWheel: false,
    moveOnMouseMove: false,
    moveOnMouseWheel: false,
    preventDefaultMouseMove: false,
  }

  // The legend shows every line's whole name: it wraps into rows and the plot starts below them (it paged its
  // names behind arrows and cut their tops before: issue 21); only a very long list pages.
  const legendNames = [...new Set(prepared.map((p) => p.line.name))]
  const rows = s.showLegend ? legendRows(legendNames, Math.max(120, (s.width ?? 600) - 16), (x) => textWidth(x, LEGEND_FONT)) : 0
  const paged = rows > LEGEND_MAX_ROWS
  return {
    animation: false,
    backgroundColor: 'transparent',
    textStyle: { fontFamily: 'inherit' },
    color: prepared.map((p) => p.line.color),
    grid: {
      left: s.compact ? 4 : 8,
      right: s.compact ? 10 : 18,
      top: s.showLegend ? 14 + LEGEND_ROW * (paged ? 1 : rows) : 14,
      bottom: 6,
      containLabel: true,
    },
    legend: s.showLegend
      ? {
          show: true,
          top: 2,
          left: 8,
          right: 8,
          type: paged ? 'scroll' : 'plain',
          padding: 0,
          itemGap: 10,
          textStyle: { color: pal.subtext, fontSize: LEGEND_FONT, lineHeight: LEGEND_ROW - 4 },
          data: legendNames,
          icon: 'roundRect',
          itemWidth: 12,
          itemHeight: 4,
          ...(paged ? { pageTextStyle: { color: pal.subtext } } : {}),
        }
      : { show: false },
    xAxis: {
      type: s.xMode === 'absolute' ? 'time' : 'value',
      min: 'dataMin',
      max: 'dataMax',
      ...axisCommon,
      splitLine: { show: true, lineStyle: { color: pal.split } },
      axisLabel: {
        ...axisCommon.axisLabel,
        formatter: s.xMode === 'absolute' ? clockFormatter(visibleSpan(prepared, z)) : (xEdges?.formatter ?? stepFormat),
      },
    },
    yAxis: (dual ? [0, 1] : [0]).map((i) => ({
      type: s.logY ? 'log' : 'value',
      scale: true,
      ...axisCommon,
      position: i === 0 ? 'left' : 'right',
      splitLine: { show: i === 0, lineStyle: { color: pal.split } },
      // ticks about a tenth of the shown range apart, or more: enough digits to tell them apart (not "30.5G" x5)
      axisLabel: {
        ...axisCommon.axisLabel,
        formatter: s.logY ? (v: number) => formatTick(v) : spacedTickFormatter(yExtent(prepared, i, dual, z, !!s.showRaw) / 10),
      },
    })),
    dataZoom: [
      { ...insideCommon, id: 'dzx', xAxisIndex: 0, ...(z ? { startValue: z.x[0], endValue: z.x[1] } : zoomNone) },
      { ...insideCommon, id: 'dzy', yAxisIndex: 0, ...(z ? { startValue: z.y[0], endValue: z.y[1] } : zoomNone) },
      ...(dual ? [{ ...insideCommon, id: 'dzy2', yAxisIndex: 1, ...zoomNone }] : []),
    ],
    brush: {
      xAxisIndex: 0,
      brushType: 'rect',
      brushMode: 'single',
      transformable: false,
      removeOnClick: true,
      throttleType: 'debounce',
      throttleDelay: 50,
      brushStyle: { borderWidth: 1, color: 'rgba(0,165,167,0.12)', borderColor: 'rgba(0,165,167,0.8)' },
      outOfBrush: { colorAlpha: 1 },
      toolbox: [],
    },
    tooltip: {
      trigger: 'axis',
      confine: true,
      className: 'chart-tooltip',
      ...tooltipColors(pal, 12),
      axisPointer: { type: 'line', lineStyle: { color: pal.axis, type: 'dashed' }, animation: false },
      formatter: (raw: unknown) => tooltipHtml(raw, s, multi),
    },
    series,
  }
}

interface TooltipParam {
  seriesId?: string
  seriesName: string
  color: string
  data: [number, number | null, number, number, number | null]
}

function tooltipHtml(raw: unknown, s: ScalarChartSettings, multi: boolean): string {
  const params = (Array.isArray(raw) ? raw : [raw]) as TooltipParam[]
  const rows = params.filter((p) => p.seriesId?.startsWith('sm:') && Array.isArray(p.data))
  if (!rows.length) return ''
  const L = s.labels
  const head = rows[0].data
  let title = `${escapeHtml(L.step)} ${head[2]}`
  if (s.xMode === 'relative') title += ` · ${escapeHtml(L.relative)} ${formatDuration(head[0])}`
  const lines = rows.map((p) => {
    const [, , step, wt, value] = p.data
    const smoothedVal = p.data[1]
    const name = multi ? `<div class="tt-name">${escapeHtml(p.seriesName)}</div>` : ''
    return `<div class="tt-row"><span class="tt-dot" style="background:${p.color}"></span><div>${name}
      <div>${escapeHtml(L.value)}: <b>${formatNumber(value)}</b> &nbsp; ${escapeHtml(L.smoothed)}: <b>${formatNumber(smoothedVal)}</b></div>
      <div class="tt-sub">${escapeHtml(L.step)} ${step} · ${escapeHtml(L.time)} ${formatWallTime(wt)}</div></div></div>`
  })
  return `<div class="tt"><div class="tt-title">${title}</div>${lines.join('')}</div>`
}

/** The x span shown (ms on an absolute axis): the zoom window, else the points' extent. Clock labels show as much
 * of the second as it needs ("08:38:40.56", not ECharts' default "08:38:40 560"). */
export function visibleSpan(prepared: PreparedLine[], zoom: Zoom | null | undefined): number {
  if (zoom) return zoom.x[1] - zoom.x[0]
  let lo = Infinity
  let hi = -Infinity
  for (const { points } of prepared) for (const p of points) [lo, hi] = [Math.min(lo, p.x), Math.max(hi, p.x)]
  return hi > lo ? hi - lo : 0
}

/**
 * Step axis labels: the short form (123k), or the whole step where the short form's three significant
 * digits cannot tell the ticks of a zoomed window apart (123100 / 123200, not 123k / 123k).
 */
export function stepTickFormatter(span: number | null): (v: number) => string {
  return (v: number) => {
    const a = Math.abs(v)
    if (span === null || a < 1e3) return formatTick(v)
    const resolution = 10 ** (Math.floor(Math.log10(a)) - 2) // what three significant digits resolve
    return span / 8 < resolution ? String(Math.round(v)) : formatTick(v)
  }
}

export function toCsv(prepared: PreparedLine[]): string {
  const rows = ['series,step,wall_time,value,smoothed']
  for (const { line, points } of prepared) {
    for (const p of points) rows.push(csvRow([line.name, p.step, p.wall_time, p.value, p.smoothed]))
  }
  return rows.join('\n') + '\n'
}

export function toJson(prepared: PreparedLine[], smoothing: number): string {
  return JSON.stringify(
    {
      smoothing,
      series: prepared.map(({ line, points }) => ({
        name: line.name,
        points: points.map((p) => ({ step: p.step, wall_time: p.wall_time, value: p.value, smoothed: p.smoothed })),
      })),
    },
    null,
    1,
  )
}
