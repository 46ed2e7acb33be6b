// ECharts options for histograms over steps: "front" (every step as an overlaid line) and
// "top" (an offset ridgeline: each step's histogram drawn as a filled profile stacked along
// the vertical step/time axis, like MindInsight's "offset 3-D" view).
import type { HistogramStep } from '@/api/types'
import type { EChartsOption } from './echarts'
import type { SeriesSummary } from '@/composables/useChart'
import { chartPalette, shade, tooltipColors } from '@/lib/palette'
import { escapeHtml, formatDuration, formatNumber, formatTick, formatWallTime } from '@/lib/format'
import { edgeAwareLabels } from './axisEdges'

export type HistView = 'front' | 'top'
export type HistYMode = 'step' | 'relative' | 'absolute'

export interface HistLabels {
  step: string
  count: string
  range: string
  time: string
  /** "Peak bucket" (top view); "NaN" / "+Inf" / "-Inf" lines when the step has such values. */
  peak?: string
  nan?: string
  posInf?: string
  negInf?: string
}

/** The NaN / ±Inf counts MindSpore wrote for a step (absent fields: none). */
export function nonFinite(h: HistogramStep): { nan: number; posInf: number; negInf: number } {
  return { nan: h.nan_count ?? 0, posInf: h.pos_inf_count ?? 0, negInf: h.neg_inf_count ?? 0 }
}

/**
 * What a histogram has to draw: 'data' when some bucket counts a value; else, when values were recorded but every
 * one is non-finite (MindSpore counts them apart from its buckets, which then all hold 0), 'nan' (all NaN) or
 * 'nonfinite' (NaN and ±Inf): the chart says so instead of drawing flat lines. 'empty' when nothing was recorded.
 */
export function histogramContent(steps: HistogramStep[]): 'data' | 'nan' | 'nonfinite' | 'empty' {
  if (steps.some((h) => h.buckets.some((b) => b[2] > 0))) return 'data'
  const counts = steps.map(nonFinite)
  if (counts.some((c) => c.posInf || c.negInf)) return 'nonfinite'
  return counts.some((c) => c.nan) ? 'nan' : 'empty'
}

function nonFiniteLines(h: HistogramStep, labels: HistLabels): string {
  const c = nonFinite(h)
  if (!c.nan && !c.posInf && !c.negInf) return ''
  return `<div class="tt-warn">${escapeHtml(labels.nan ?? 'NaN')}: ${c.nan} · ${escapeHtml(labels.posInf ?? '+Inf')}: ${c.posInf} · ${escapeHtml(labels.negInf ?? '-Inf')}: ${c.negInf}</div>`
}

/**
 * Front view: the bucket the pointer is over (nearest bucket centre on x) on the step whose count
 * there is nearest to the pointer's y. Returns the series (step) and data (bucket) index, or null.
 */
export function nearestBucket(steps: HistogramStep[], x: number, y: number): { seriesIndex: number; dataIndex: number } | null {
  let best: { seriesIndex: number; dataIndex: number } | null = null
  let bestDy = Infinity
  steps.forEach((h, i) => {
    let j = -1
    let dx = Infinity
    h.buckets.forEach(([left, width], k) => {
      const d = Math.abs(left + width / 2 - x)
      if (d < dx) {
        dx = d
        j = k
      }
    })
    if (j < 0) return
    const dy = Math.abs(h.buckets[j][2] - y)
    if (dy < bestDy || (dy === bestDy && best !== null)) {
      bestDy = dy
      best = { seriesIndex: i, dataIndex: j }
    }
  })
  return best
}

const BASE = '#00a5a7'

function rowValue(h: HistogramStep, mode: HistYMode, t0: number): number {
  return mode === 'step' ? h.step : mode === 'relative' ? h.wall_time - t0 : h.wall_time
}

function rowColor(i: number, n: number): string {
  const f = n <= 1 ? 1 : i / (n - 1)
  return shade(BASE, 0.72 - f * 0.95) // older: light, newer: dark
}

function formatRow(v: number, mode: HistYMode): string {
  if (mode === 'absolute') return formatWallTime(v).slice(11)
  if (mode === 'relative') return formatDuration(v)
  return formatTick(v)
}

export function histogramSummary(steps: HistogramStep[]): SeriesSummary[] {
  return steps.map((h) => {
    const last = h.buckets[h.buckets.length - 1]
    return { name: `step ${h.step}`, points: h.buckets.length, lastX: h.step, lastY: last ? last[2] : null }
  })
}

export function buildHistogramOption(
  steps: HistogramStep[],
  view: HistView,
  yMode: HistYMode,
  labels: HistLabels,
  compact = false,
): EChartsOption {
  const pal = chartPalette()
  const n = steps.length
  let xmin = Infinity
  let xmax = -Infinity
  let cmax = 0
  for (const h of steps) {
    for (const [left, width, count] of h.buckets) {
      xmin = Math.min(xmin, left)
      xmax = Math.max(xmax, left + width)
      cmax = Math.max(cmax, count)
    }
  }
  if (!Number.isFinite(xmin)) {
    xmin = 0
    xmax = 1
  } else if (xmin === xmax) {
    // every value equal (an all-zero bias): the server answers one zero-width bucket per step, a spike at the value
    const pad = Math.abs(xmin) * 0.1 || 0.5
    xmin -= pad
    xmax += pad
  }
  // a zero-width bucket is drawn as a spike this wide (the ridgeline) or as a vertical line (the front view)
  const spike = (xmax - xmin) / 100
  const t0 = n ? steps[0].wall_time : 0
  const axisCommon = {
    axisLine: { onZero: false, lineStyle: { color: pal.axis } },
    axisTick: { lineStyle: { color: pal.axis } },
    axisLabel: { color: pal.subtext, fontSize: 11, hideOverlap: true, formatter: (v: number) => formatTick(v) },
    splitLine: { show: false },
  }
  // the x axis spans the buckets exactly: its end labels are dropped where they would crowd a tick
  const edges = edgeAwareLabels(xmin, xmax, formatTick)
  const xEdges = { axisLabel: { ...axisCommon.axisLabel, formatter: edges.formatter } }
  const tooltipBase = {
    confine: true,
    ...tooltipColors(pal, 12),
  }

  if (view === 'front') {
    return {
      animation: false,
      grid: { left: 8, right: 16, top: 12, bottom: 6, containLabel: true },
      xAxis: { type: 'value', min: xmin, max: xmax, ...axisCommon, ...xEdges },
      yAxis: { type: 'value', ...axisCommon, splitLine: { show: true, lineStyle: { color: pal.split } } },
      tooltip: {
        ...tooltipBase,
        trigger: 'item',
        formatter: (p: unknown) => {
          const { data, seriesIndex } = p as { data: number[]; seriesIndex: number }
          const h = steps[seriesIndex]
          return `<div class="tt"><div class="tt-title">${escapeHtml(labels.step)} ${h.step}</div>
            <div>${escapeHtml(labels.range)}: ${data[2] === data[3] ? `${formatNumber(data[2], 4)}` : `[${formatNumber(data[2], 4)}, ${formatNumber(data[3], 4)})`}</div>
            <div>${escapeHtml(labels.count)}: <b>${formatNumber(data[1])}</b></div>${nonFiniteLines(h, labels)}
            <div class="tt-sub">${escapeHtml(labels.time)} ${formatWallTime(h.wall_time)}</div></div>`
        },
      },
      series: steps.map((h, i) => ({
        type: 'line',
        name: `step ${h.step}`,
        // a zero-width bucket: its peak, then down to 0 at the same x (a vertical line; the peak keeps index 0)
        data: h.buckets.flatMap(([left, width, count]) =>
          width ? [[left + width / 2, count, left, left + width]] : [[left, count, left, left], [left, 0, left, left]],
        ),
        showSymbol: !compact,
        symbolSize: 3,
        symbol: 'circle',
        color: rowColor(i, n),
        lineStyle: { width: i === n - 1 ? 1.6 : 1 },
        emphasis: { focus: 'series', lineStyle: { width: 2.2 } },
      })),
    }
  }

  // top / offset ridgeline
  const rows = steps.map((h) => rowValue(h, yMode, t0))
  const rmin = rows.length ? Math.min(...rows) : 0
  const rmax = rows.length ? Math.max(...rows) : 1
  const span = rmax - rmin
  // Peaks are about six rows tall, whatever the number of steps.
  const height = span > 0 ? span * Math.min(0.4, Math.max(0.08, 6 / Math.max(1, n))) : 1
  return {
    animation: false,
    grid: { left: 8, right: compact ? 8 : 16, top: 12, bottom: 6, containLabel: true },
    xAxis: { type: 'value', min: xmin, max: xmax, ...axisCommon, ...xEdges },
    yAxis: {
      type: 'value',
      inverse: true,
      position: 'right',
      min: rmin - height,
      max: span > 0 ? rmax : rmin + 0.05,
      ...axisCommon,
      axisLine: { show: false, onZero: false },
      axisTick: { show: false },
      axisLabel: { ...axisCommon.axisLabel, formatter: (v: number) => (v < rmin ? '' : formatRow(v, yMode)) },
    },
    tooltip: {
      ...tooltipBase,
      trigger: 'item',
      formatter: (p: unknown) => {
        const i = (p as { dataIndex: number }).dataIndex
        const h = steps[i]
        const total = h.buckets.reduce((a, b) => a + b[2], 0)
        const peak = h.buckets.reduce((a, b) => (b[2] > a[2] ? b : a), h.buckets[0] ?? [0, 0, 0])
        return `<div class="tt"><div class="tt-title">${escapeHtml(labels.step)} ${h.step}</div>
          <div>${escapeHtml(labels.count)}: <b>${formatNumber(total)}</b></div>
          <div>${escapeHtml(labels.peak ?? 'Peak bucket')}: [${formatNumber(peak[0], 4)}, ${formatNumber(peak[0] + peak[1], 4)}) · ${formatNumber(peak[2])}</div>${nonFiniteLines(h, labels)}
          <div class="tt-sub">${escapeHtml(labels.time)} ${formatWallTime(h.wall_time)}</div></div>`
      },
    },
    series: [
      {
        type: 'custom',
        name: 'histogram',
        data: steps.map((_, i) => [xmin, rows[i], i]),
        encode: { x: 0, y: 1 },
        clip: true,
        renderItem: (_params: unknown, api: { value: (d: number) => number; coord: (v: number[]) => number[] }) => {
          const i = api.value(2)
          const h = steps[i]
          const base = rows[i]
          const pts: number[][] = []
          if (!h.buckets.length) return null
          const drawn = h.buckets.map(([left, width, count]) => (width ? [left, width, count] : [left - spike / 2, spike, count]))
          pts.push(api.coord([drawn[0][0], base]))
          for (const [left, width, count] of drawn) {
            pts.push(api.coord([left + width / 2, base - (cmax > 0 ? (count / cmax) * height : 0)]))
          }
          const lastB = drawn[drawn.length - 1]
          pts.push(api.coord([lastB[0] + lastB[1], base]))
          const color = rowColor(i, n)
          return {
            type: 'polygon',
            shape: { points: pts },
            style: { fill: color, opacity: 0.78, stroke: shade(BASE, -0.5), lineWidth: 0.7 },
            emphasis: { style: { stroke: '#e8684a', lineWidth: 1.5 } },
          }
        },
      },
    ],
  }
}
