// ECharts option of a PR or ROC curve (x, y in [0, 1]; one point per threshold; the tooltip names the
// threshold and its counts). ROC adds the chance diagonal.
import type { EChartsOption } from './echarts'
import type { CurvePoint } from '@/lib/roc'
import { chartPalette, tooltipColors } from '@/lib/palette'
import { escapeHtml, formatNumber } from '@/lib/format'

export interface CurveLabels {
  x: string
  y: string
  threshold: string
  chance?: string
}

export function buildCurveOption(points: CurvePoint[], color: string, labels: CurveLabels, roc: boolean): EChartsOption {
  const pal = chartPalette()
  const axis = (name: string) => ({
    type: 'value',
    min: 0,
    max: 1,
    name,
    nameLocation: 'middle',
    nameGap: 26,
    nameTextStyle: { color: pal.subtext, fontSize: 11 },
    axisLine: { lineStyle: { color: pal.axis } },
    axisLabel: { color: pal.subtext, fontSize: 11 },
    splitLine: { lineStyle: { color: pal.split } },
  })
  const series: unknown[] = [
    {
      id: 'curve',
      type: 'line',
      data: points.map((p) => [p.x, p.y, p.threshold, p.tp, p.fp, p.tn, p.fn]),
      showSymbol: points.length < 60,
      symbolSize: 4,
      color,
      lineStyle: { width: 2 },
      animation: false,
    },
  ]
  if (roc)
    series.push({
      id: 'chance',
      name: labels.chance,
      type: 'line',
      data: [
        [0, 0],
        [1, 1],
      ],
      showSymbol: false,
      silent: true,
      color: pal.axis,
      lineStyle: { type: 'dashed', width: 1 },
      tooltip: { show: false },
      animation: false,
    })
  return {
    animation: false,
    backgroundColor: 'transparent',
    textStyle: { fontFamily: 'inherit' },
    grid: { left: 44, right: 14, top: 12, bottom: 40 },
    xAxis: axis(labels.x),
    yAxis: axis(labels.y),
    tooltip: {
      trigger: 'item',
      confine: true,
      className: 'chart-tooltip',
      ...tooltipColors(pal, 12),
      formatter: (raw: unknown) => {
        const d = (raw as { data: number[] }).data
        if (!d || d.length < 7) return ''
        return `<div class="tt"><div class="tt-title">${escapeHtml(labels.threshold)} ${formatNumber(d[2])}</div>
          <div>${escapeHtml(labels.x)}: <b>${formatNumber(d[0])}</b> · ${escapeHtml(labels.y)}: <b>${formatNumber(d[1])}</b></div>
          <div class="tt-sub">TP ${d[3]} · FP ${d[4]} · TN ${d[5]} · FN ${d[6]}</div></div>`
      },
    },
    series,
  }
}
