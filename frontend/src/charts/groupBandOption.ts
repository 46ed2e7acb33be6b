// Group curves on the comparison page (issue 32): per group, the server's center line (mean or median of its
// runs at each step) and a shaded band from `lower` to `upper` (min–max, ± std or ± sem), as
// `datavisual/scalars/aggregate` answers them. The band is two stacked line series: `lower` drawn invisible
// and `upper - lower` stacked on it with an area fill (stackStrategy 'all': a negative lower still stacks).
import type { EChartsOption } from './echarts'
import type { AggregateGroup } from '@/api/aggregate'
import { csvRow } from '@/lib/csv'
import { chartPalette, seriesColor, tooltipColors } from '@/lib/palette'
import { formatTick } from '@/lib/format'

export type GroupMode = 'none' | 'regex' | 'hparam' | 'rank'
export const GROUP_MODES: readonly GroupMode[] = ['none', 'regex', 'hparam', 'rank']

/** The server's `group_by` for a mode and its text (a regex or an hparam name); null: no grouping (yet). */
export function groupBySpec(mode: GroupMode, regex: string, hparam: string): string | null {
  if (mode === 'regex') return regex ? `regex:${regex}` : null
  if (mode === 'hparam') return hparam.trim() ? `hparam:${hparam.trim()}` : null
  if (mode === 'rank') return 'rank_group'
  return null
}

/** A group's legend name: its name and how many runs it holds. */
export function groupLabel(g: Pick<AggregateGroup, 'name' | 'train_ids'>): string {
  return `${g.name} (${g.train_ids.length})`
}

export interface GroupBandSettings {
  logY: boolean
  labels: { step: string; value: string }
}

type Pair = [number, number | null]

function bandSpan(g: AggregateGroup): Pair[] {
  return g.steps.map((s, i) => {
    const lo = g.lower[i]
    const hi = g.upper[i]
    return [s, lo === null || hi === null ? null : hi - lo]
  })
}

/** The ECharts option: three series per group (band base, band span, center), the legend naming groups. */
export function buildGroupBandOption(groups: AggregateGroup[], s: GroupBandSettings): EChartsOption {
  const pal = chartPalette()
  const series: Record<string, unknown>[] = []
  groups.forEach((g, i) => {
    const color = seriesColor(i)
    const name = groupLabel(g)
    const stack = `band:${i}`
    // every series of the group carries its colour: the legend takes its icon from the first one (the band base)
    const common = { name, color, type: 'line', showSymbol: false, symbol: 'none', animation: false, connectNulls: false }
    series.push(
      {
        ...common, id: `band-lo:${i}`, stack, stackStrategy: 'all', silent: true,
        lineStyle: { opacity: 0 }, data: g.steps.map((st, k): Pair => [st, g.lower[k]]), tooltip: { show: false },
      },
      {
        ...common, id: `band:${i}`, stack, stackStrategy: 'all', silent: true,
        lineStyle: { opacity: 0 }, areaStyle: { color, opacity: 0.18 }, data: bandSpan(g), tooltip: { show: false },
      },
      {
        ...common, id: `center:${i}`, lineStyle: { width: 1.6, color }, z: 3,
        showSymbol: g.steps.length <= 20,
        data: g.steps.map((st, k): Pair => [st, g.center[k]]),
      },
    )
  })
  return {
    animation: false,
    grid: { left: 56, right: 16, top: 44, bottom: 36 },
    legend: {
      type: 'scroll', top: 0, left: 8, right: 8, data: groups.map(groupLabel),
      textStyle: { color: pal.text, fontSize: 11 }, pageTextStyle: { color: pal.text },
    },
    tooltip: {
      trigger: 'axis',
      confine: true,
      ...tooltipColors(pal, 12),
      formatter: (raw: unknown) => {
        const params = (Array.isArray(raw) ? raw : [raw]) as { seriesId: string; dataIndex: number }[]
        const rows = params.filter((p) => p.seriesId.startsWith('center:')).map((p) => {
          const g = groups[Number(p.seriesId.slice(7))]
          const k = p.dataIndex
          const v = (x: number | null) => (x === null ? '–' : formatTick(x))
          return `${groupLabel(g)}: ${v(g.center[k])} [${v(g.lower[k])}, ${v(g.upper[k])}] n=${g.count[k]}`
        })
        const first = params[0]
        const step = first ? groups[Number(first.seriesId.split(':')[1])]?.steps[first.dataIndex] : ''
        return [`${s.labels.step} ${step}`, ...rows].map((r) => r.replace(/</g, '&lt;')).join('<br/>')
      },
    },
    xAxis: {
      type: 'value', name: s.labels.step, nameLocation: 'middle', nameGap: 22, scale: true,
      axisLine: { lineStyle: { color: pal.axis } }, axisLabel: { color: pal.text }, splitLine: { lineStyle: { color: pal.split } },
    },
    yAxis: {
      type: s.logY ? 'log' : 'value', scale: true,
      axisLabel: { color: pal.text, formatter: (v: number) => formatTick(v) }, splitLine: { lineStyle: { color: pal.split } },
    },
    series,
  } as EChartsOption
}

/** CSV of the group curves: one row per group and step (`step, group, center, lower, upper, count`). */
export function groupCurvesCsv(groups: AggregateGroup[]): string {
  const lines = [csvRow(['step', 'group', 'center', 'lower', 'upper', 'count'])]
  for (const g of groups) {
    g.steps.forEach((st, k) => lines.push(csvRow([st, g.name, g.center[k], g.lower[k], g.upper[k], g.count[k]])))
  }
  return lines.join('\n') + '\n'
}
