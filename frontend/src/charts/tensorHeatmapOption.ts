// A 2-D tensor slice as a heat map (row 0 at the top, as the table shows it): finite values on a
// diverging scale centred on zero (negative orange, positive teal, like the table's colours), NaN and
// ±Inf cells in red with their label. The heat map shows windows too wide to read as a table.
import type { EChartsOption } from './echarts'
import { chartPalette } from '@/lib/palette'
import { formatNumber } from '@/lib/format'
import { theme } from '@/state'
import type { HeatmapCells } from '@/lib/tensorSlice'

export function tensorHeatmapOption(h: HeatmapCells, labels: { row: string; col: string; value: string }): EChartsOption {
  const p = chartPalette()
  const bound = Math.max(Math.abs(h.min), Math.abs(h.max)) || 1
  const dark = theme.value === 'dark'
  const cats = (n: number) => Array.from({ length: n }, (_, i) => String(i))
  return {
    backgroundColor: 'transparent',
    textStyle: { color: p.text },
    animation: false,
    tooltip: {
      backgroundColor: p.tooltipBg,
      borderColor: p.tooltipBorder,
      textStyle: { color: p.text },
      confine: true,
      trigger: 'item',
      formatter: (q: unknown) => {
        const v = (q as { value: [number, number, number | string] }).value
        const shown = typeof v[2] === 'number' ? formatNumber(v[2]) : v[2]
        return `<div class="tt"><div class="tt-title">${labels.row} ${v[1]}, ${labels.col} ${v[0]}</div><div>${labels.value}: <b>${shown}</b></div></div>`
      },
    },
    grid: { left: 8, right: 70, top: 24, bottom: 8, containLabel: true },
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
      {
        type: 'heatmap',
        name: 'nonfinite',
        data: h.nonFinite,
        itemStyle: { color: dark ? '#c0392b' : '#e03131' },
        label: { show: h.rows * h.cols <= 400, color: '#fff', fontSize: 9, formatter: (q: unknown) => String((q as { value: unknown[] }).value[2]) },
      },
    ],
  }
}
