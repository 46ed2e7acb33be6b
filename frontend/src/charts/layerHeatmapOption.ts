// The layer x step heatmap of a tag family (scalars/heatmap, issue 32): y = the tag's number (or name),
// x = a column's first step, colour = the column's largest-|value| point. Log mode colours by log10 |value|
// (the sign is dropped: say so in the UI); zeros then take the lowest colour. Non-finite cells are a series per
// kind (NaN, +Inf, −Inf: the server's nonfinite_kind; one saying only "non-finite" counts as NaN), each in the
// tensor heat map's colour for that kind with a legend entry, outside the value colour scale; cells without a
// point stay blank.
import type { EChartsOption } from './echarts'
import { chartPalette, tooltipColors } from '@/lib/palette'
import { escapeHtml, formatNumber } from '@/lib/format'
import type { ScalarHeatmapResponse } from '@/api/client'
import { NONFINITE_KINDS } from './tensorHeatmapOption'

export type HeatmapScale = 'linear' | 'log'

/** [column, row, colour value, raw value] for a finite cell; [column, row, 0] for a non-finite one (its kind's
 * one-colour visualMap: a heatmap series takes its colours from a visualMap only) */
export type FiniteCell = [number, number, number, number]
export type NonFiniteCell = [number, number, 0]

export interface LayerHeatmapCells {
  finite: FiniteCell[]
  /** the non-finite cells by kind: NaN, +Inf, −Inf (NONFINITE_KINDS' order) */
  nonFinite: NonFiniteCell[][]
  /** colour range (in log10 |value| when log) */
  min: number
  max: number
  /** the finite cell of largest |value| (row, column, value), null without one */
  peak: { row: number; col: number; value: number } | null
}

const SCALE_COLORS = ['#313695', '#4575b4', '#74add1', '#abd9e9', '#fee090', '#fdae61', '#f46d43', '#d73027', '#a50026']

/** The cells to draw from a scalars/heatmap answer, coloured linearly or by log10 |value|. */
export function layerHeatmapCells(h: Pick<ScalarHeatmapResponse, 'values' | 'nonfinite' | 'nonfinite_kind'>, scale: HeatmapScale): LayerHeatmapCells {
  const finite: FiniteCell[] = []
  const nonFinite: NonFiniteCell[][] = NONFINITE_KINDS.map(() => [])
  let min = Infinity
  let max = -Infinity
  let peak: LayerHeatmapCells['peak'] = null
  const zeros: FiniteCell[] = []
  h.values.forEach((row, i) => {
    row.forEach((v, j) => {
      if (h.nonfinite[i]?.[j]) {
        const kind = h.nonfinite_kind?.[i]?.[j] ?? 1
        nonFinite[kind >= 1 && kind <= NONFINITE_KINDS.length ? kind - 1 : 0].push([j, i, 0])
      }
      if (v === null || !Number.isFinite(v)) return
      if (!peak || Math.abs(v) > Math.abs(peak.value)) peak = { row: i, col: j, value: v }
      const c = scale === 'log' ? (v === 0 ? NaN : Math.log10(Math.abs(v))) : v
      const cell: FiniteCell = [j, i, c, v]
      if (Number.isNaN(c)) {
        zeros.push(cell)
        return
      }
      if (c < min) min = c
      if (c > max) max = c
      finite.push(cell)
    })
  })
  if (min > max) min = max = 0
  for (const z of zeros) finite.push([z[0], z[1], min, z[3]])
  return { finite, nonFinite, min, max, peak }
}

export interface LayerHeatmapLabels {
  step: string
  value: string
  /** the colour scale's name: `value`, or `log10 |value|` */
  scale: string
}

/** The ECharts option: `rows` the y labels (tag numbers), `tags` the full tag names (tooltip), `steps` columns. */
export function layerHeatmapOption(
  cells: LayerHeatmapCells,
  rows: string[],
  tags: string[],
  steps: number[],
  labels: LayerHeatmapLabels,
): EChartsOption {
  const p = chartPalette()
  const kinds = NONFINITE_KINDS.map((kind, k) => ({ ...kind, cells: cells.nonFinite[k] })).filter((k) => k.cells.length)
  const stepRange = (j: number) => {
    const next = steps[j + 1]
    return next !== undefined && next - 1 > steps[j] ? `${steps[j]}–${next - 1}` : String(steps[j])
  }
  return {
    backgroundColor: 'transparent',
    textStyle: { color: p.text },
    animation: false,
    legend: {
      show: kinds.length > 0,
      data: kinds.map((k) => ({ name: k.name, itemStyle: { color: k.colors[0] } })),
      top: 0,
      left: 'center',
      textStyle: { color: p.subtext },
      selectedMode: false,
    },
    tooltip: {
      ...tooltipColors(p),
      confine: true,
      trigger: 'item',
      formatter: (q: unknown) => {
        const { value, seriesIndex } = q as { value: number[]; seriesIndex: number }
        const shown = seriesIndex === 0 ? formatNumber(value[3]) : (kinds[seriesIndex - 1]?.name ?? '')
        return `<div class="tt"><div class="tt-title">${escapeHtml(tags[value[1]] ?? '')}</div><div>${labels.step} ${stepRange(value[0])}</div><div>${labels.value}: <b>${shown}</b></div></div>`
      },
    },
    grid: { left: 8, right: 90, top: 28, bottom: 26, containLabel: true },
    xAxis: {
      type: 'category',
      name: labels.step,
      nameLocation: 'middle',
      nameGap: 22,
      data: steps.map(String),
      axisLabel: { color: p.subtext },
      axisLine: { lineStyle: { color: p.axis } },
    },
    yAxis: {
      type: 'category',
      data: rows,
      inverse: true,
      // at most ~32 labels (64 layers in ~500 px): every other one, else they overlap
      axisLabel: { color: p.subtext, fontSize: 10, interval: Math.max(0, Math.ceil(rows.length / 32) - 1) },
      axisLine: { lineStyle: { color: p.axis } },
    },
    visualMap: [{
      type: 'continuous',
      seriesIndex: 0,
      dimension: 2,
      min: cells.min,
      max: cells.max,
      calculable: true,
      orient: 'vertical',
      right: 4,
      top: 'middle',
      text: [labels.scale, ''],
      textStyle: { color: p.subtext },
      inRange: { color: SCALE_COLORS },
      formatter: (v: unknown) => formatNumber(Number(v), 3),
    },
    ...kinds.map((k, n) => ({ type: 'continuous' as const, seriesIndex: n + 1, dimension: 2, min: 0, max: 1, show: false,
      inRange: { color: [k.colors[0], k.colors[0]] } })),
    ],
    series: [
      {
        type: 'heatmap',
        name: labels.value,
        data: cells.finite,
        progressive: 0,
        emphasis: { itemStyle: { borderColor: p.text, borderWidth: 1 } },
      },
      ...kinds.map((k) => ({
        type: 'heatmap' as const,
        name: k.name,
        data: k.cells,
        progressive: 0,
        emphasis: { itemStyle: { borderColor: p.text, borderWidth: 1 } },
      })),
    ],
  }
}
