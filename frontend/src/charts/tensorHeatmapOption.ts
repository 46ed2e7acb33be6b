// A 2-D tensor slice as a heat map (row 0 at the top, as the table shows it): finite values on a
// diverging scale centred on zero (negative orange, positive teal, like the table's colours); NaN, +Inf and
// −Inf cells each in their own colour, off that scale, with a legend entry and their count (issue 34: NaN cells
// were white, like values near 0). The heat map shows windows too wide to read as a table.
import type { EChartsOption } from './echarts'
import { chartPalette, tooltipColors } from '@/lib/palette'
import { formatNumber } from '@/lib/format'
import { theme } from '@/state'
import type { HeatmapCells } from '@/lib/tensorSlice'

/** The non-finite kinds: legend name, colour (light, dark), and which cell labels belong to it. */
export const NONFINITE_KINDS = [
  { name: 'NaN', colors: ['#7b2cbf', '#b07cf0'], match: (v: string) => v.toUpperCase() === 'NAN' },
  { name: '+Inf', colors: ['#e03131', '#ff6b6b'], match: (v: string) => ['INF', '+INF', 'INFINITY'].includes(v.toUpperCase()) },
  { name: '−Inf', colors: ['#1c4fd6', '#6b8cff'], match: (v: string) => ['-INF', '-INFINITY'].includes(v.toUpperCase()) },
] as const

/** The non-finite cells split by kind (a label that is none of them counts as NaN). */
export function nonFiniteByKind(cells: [number, number, string][]): [number, number, string][][] {
  const out: [number, number, string][][] = NONFINITE_KINDS.map(() => [])
  for (const c of cells) {
    const k = NONFINITE_KINDS.findIndex((kind) => kind.match(c[2]))
    out[k < 0 ? 0 : k].push(c)
  }
  return out
}

export function tensorHeatmapOption(h: HeatmapCells, labels: { row: string; col: string; value: string }): EChartsOption {
  const p = chartPalette()
  const bound = Math.max(Math.abs(h.min), Math.abs(h.max)) || 1
  const dark = theme.value === 'dark'
  const cats = (n: number) => Array.from({ length: n }, (_, i) => String(i))
  const byKind = nonFiniteByKind(h.nonFinite)
  const legendNames = NONFINITE_KINDS.filter((_, k) => byKind[k].length).map((kind) => kind.name)
  return {
    backgroundColor: 'transparent',
    textStyle: { color: p.text },
    animation: false,
    tooltip: {
      ...tooltipColors(p),
      confine: true,
      trigger: 'item',
      formatter: (q: unknown) => {
        const v = (q as { value: [number, number, number | string] }).value
        const shown = typeof v[2] === 'number' ? formatNumber(v[2]) : v[2]
        return `<div class="tt"><div class="tt-title">${labels.row} ${v[1]}, ${labels.col} ${v[0]}</div><div>${labels.value}: <b>${shown}</b></div></div>`
      },
    },
    grid: { left: 8, right: 70, top: 24, bottom: legendNames.length ? 30 : 8, containLabel: true },
    legend: {
      show: legendNames.length > 0,
      data: legendNames,
      bottom: 0,
      selectedMode: false,
      textStyle: { color: p.subtext },
      formatter: (name: string) => `${name} (${byKind[NONFINITE_KINDS.findIndex((k) => k.name === name)].length})`,
    },
    xAxis: { type: 'category', data: cats(h.cols), position: 'top', axisLabel: { color: p.subtext } },
    yAxis: { type: 'category', data: cats(h.rows), inverse: true, axisLabel: { color: p.subtext } },
    visualMap: {
      type: 'continuous',
      seriesIndex: 0,
      min: -bound,
      max: bound,
      calculable: true,
      orient: 'vertical',
      right: 4,
      top: 'middle',
      textStyle: { color: p.subtext },
      inRange: { color: dark ? ['#f0a55a', '#1c212b', '#1fc3c4'] : ['#ec8028', '#ffffff', '#00a5a7'] },
      formatter: (v: unknown) => formatNumber(Number(v), 3),
    },
    series: [
      { type: 'heatmap', name: 'finite', data: h.finite, progressive: 0, emphasis: { itemStyle: { borderColor: p.text, borderWidth: 1 } } },
      ...NONFINITE_KINDS.map((kind, k) => ({
        type: 'heatmap' as const,
        name: kind.name,
        data: byKind[k],
        itemStyle: { color: kind.colors[dark ? 1 : 0] },
        label: { show: h.rows * h.cols <= 400, color: '#fff', fontSize: 9, formatter: (q: unknown) => String((q as { value: unknown[] }).value[2]) },
      })),
    ],
  }
}
