// ECharts options of the old Ascend/GPU layout's views (step trace, per-step phases, the step's trace graph, the
// cluster bars, FLOPs per rank and per scope, queue sizes), built from legacyModel.ts and the theme's palette.
import type { EChartsOption } from '@/charts/echarts'
import { laneBarsSeries } from '@/charts/laneBarsSeries'
import { chartPalette } from '@/lib/palette'
import { escapeHtml } from '@/lib/format'
import { t, type MessageKey } from '@/i18n'
import type { FlopsScope, FlopsSummary } from '@/api/profilerApi'
import type { TraceBar } from './legacyModel'
import { tooltipBase, valueAxis } from './ascendCharts'

const ms = (v: unknown) => `${Number(v).toFixed(4)} ms`

/** Stacked bars: one per category (a step or a rank), one series per phase (`keys` are translated labels). */
export function stackedBarsOption(
  categories: string[],
  series: { label: string; values: number[] }[],
  opts: { unit?: string; zoom?: boolean; highlight?: number } = {},
): EChartsOption {
  const p = chartPalette()
  const unit = opts.unit ?? 'ms'
  return {
    backgroundColor: 'transparent',
    textStyle: { color: p.text },
    legend: { top: 0, textStyle: { color: p.text } },
    tooltip: { ...tooltipBase(p), trigger: 'axis', axisPointer: { type: 'shadow' },
      valueFormatter: (v: unknown) => (unit === 'ms' ? ms(v) : `${Number(v)} ${unit}`) },
    grid: { left: 12, right: 20, top: 36, bottom: opts.zoom ? 40 : 8, containLabel: true },
    xAxis: {
      type: 'category',
      data: categories.map((c, i) =>
        i === opts.highlight ? { value: c, textStyle: { color: p.series[3], fontWeight: 'bold' } } : { value: c }),
      axisLabel: { color: p.text, hideOverlap: true },
      axisLine: { lineStyle: { color: p.axis } },
    },
    yAxis: valueAxis(p, unit),
    dataZoom: opts.zoom ? [{ type: 'inside' }, { type: 'slider', height: 16, bottom: 6, textStyle: { color: p.subtext } }] : [],
    series: series.map((s, k) => ({
      name: s.label,
      type: 'bar',
      stack: 'all',
      barMaxWidth: 56,
      large: categories.length > 500,
      itemStyle: { color: p.series[k % p.series.length] },
      data: s.values,
    })),
  }
}

/** One step as bars on lanes: the whole step, its phases, then each stream's reduce events (ms from its start). */
export function traceGraphOption(bars: TraceBar[], lanes: string[], phaseLabel: (name: string) => string): EChartsOption {
  const p = chartPalette()
  const color = (b: TraceBar): string => {
    if (b.row === 0) return p.axis
    const phases = ['iteration_interval', 'fp_and_bp', 'tail', 'fp']
    const i = phases.indexOf(b.name)
    return i >= 0 ? p.series[i] : p.series[(4 + b.row) % p.series.length]
  }
  return {
    backgroundColor: 'transparent',
    textStyle: { color: p.text },
    tooltip: {
      ...tooltipBase(p),
      trigger: 'item',
      formatter: (q: { value: number[] }) => {
        const b = bars[q.value[3]]
        return b
          ? `<div class="tt"><div class="tt-title">${escapeHtml(phaseLabel(b.name))}</div>` +
              `<div>${ms(b.duration)}</div><div class="muted">@ ${ms(b.start)}</div></div>`
          : ''
      },
    },
    grid: { left: 12, right: 24, top: 8, bottom: 8, containLabel: true },
    xAxis: { ...valueAxis(p), min: 0 },
    yAxis: { type: 'category', data: lanes, inverse: true, axisLabel: { color: p.text }, axisLine: { lineStyle: { color: p.axis } } },
    series: [
      laneBarsSeries({
        data: bars.map((b, i) => [b.start, b.start + b.duration, b.row, i]),
        heightRatio: 0.6,
        minHeight: 6,
        fill: (i) => (bars[i] ? color(bars[i]) : p.axis),
      }),
    ],
  }
}

/** Horizontal bars of one value per rank (e.g. FLOPs), labelled with a second figure. */
export function rankBarsOption(ranks: string[], values: number[], label: (i: number) => string, unit: string): EChartsOption {
  const p = chartPalette()
  return {
    backgroundColor: 'transparent',
    textStyle: { color: p.text },
    tooltip: { ...tooltipBase(p), trigger: 'axis', axisPointer: { type: 'shadow' }, valueFormatter: (v: unknown) => `${v} ${unit}` },
    grid: { left: 12, right: 140, top: 8, bottom: 8, containLabel: true },
    xAxis: { ...valueAxis(p, unit), axisLabel: { color: p.subtext, hideOverlap: true } },
    yAxis: { type: 'category', data: ranks, inverse: true, axisLabel: { color: p.text } },
    series: [{
      type: 'bar',
      barMaxWidth: 24,
      itemStyle: { color: p.series[0] },
      label: { show: true, position: 'right', color: p.subtext, formatter: (q: { dataIndex: number }) => label(q.dataIndex) },
      data: values,
    }],
  }
}

/** The queue size of each batch (a line per queue). */
export function queueOption(series: { label: string; values: number[] }[]): EChartsOption {
  const p = chartPalette()
  const longest = Math.max(0, ...series.map((s) => s.values.length))
  return {
    backgroundColor: 'transparent',
    textStyle: { color: p.text },
    legend: { top: 0, textStyle: { color: p.text } },
    tooltip: { ...tooltipBase(p), trigger: 'axis' },
    grid: { left: 12, right: 20, top: 36, bottom: 8, containLabel: true },
    xAxis: { type: 'category', data: Array.from({ length: longest }, (_, i) => String(i + 1)), axisLabel: { color: p.text } },
    yAxis: valueAxis(p, ''),
    series: series.map((s, k) => ({ name: s.label, type: 'line', step: 'middle', showSymbol: longest < 60,
      itemStyle: { color: p.series[k % p.series.length] }, data: s.values })),
  }
}

/** FLOPs per scope as a Sankey diagram (MindInsight's flops_scope file: nodes and links). */
export function flopsSankeyOption(scope: FlopsScope): EChartsOption {
  const p = chartPalette()
  return {
    backgroundColor: 'transparent',
    textStyle: { color: p.text },
    tooltip: { ...tooltipBase(p), trigger: 'item', valueFormatter: (v: unknown) => `${v} MFLOPs` },
    series: [{
      type: 'sankey',
      left: 8,
      right: 180,
      top: 8,
      bottom: 8,
      nodeGap: 6,
      emphasis: { focus: 'adjacency' },
      label: { color: p.text, fontSize: 11 },
      lineStyle: { color: 'gradient', opacity: 0.35 },
      itemStyle: { borderWidth: 0 },
      data: (scope.data?.nodes ?? []).map((n, i) => ({ name: n.name, itemStyle: { color: p.series[i % p.series.length] } })),
      links: scope.data?.links ?? [],
    }],
  }
}

export function phaseKey(name: string): MessageKey | null {
  const known = ['iteration_interval', 'fp_and_bp', 'tail', 'fp']
  return known.includes(name) ? (`legacy.${name}` as MessageKey) : null
}

export function phaseLabel(name: string): string {
  const key = phaseKey(name)
  return key ? t(key) : name
}

/** The FLOPs summary's figures (none when the device wrote no FLOPs). */
export function flopsCards(f: FlopsSummary | null): { id: string; label: string; value: unknown }[] {
  if (!f || f.FLOPs === undefined) return []
  return [
    { id: 'flops', label: t('legacy.flops'), value: f.FLOPs },
    { id: 'flops-per-second', label: t('legacy.flopsPerSecond'), value: f.FLOPS },
    { id: 'utilization', label: t('legacy.flopsUtil'), value: f.FLOPS_Utilization === undefined ? undefined : `${f.FLOPS_Utilization}%` },
  ]
}
