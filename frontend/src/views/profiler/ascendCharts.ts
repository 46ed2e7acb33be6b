// ECharts options of the Ascend views, built from the view model (ascendModel.ts) and the theme's palette.
import type { EChartsOption } from '@/charts/echarts'
import { chartPalette, type ChartPalette, tooltipColors } from '@/lib/palette'
import { theme } from '@/state'
import { t, type MessageKey } from '@/i18n'
import { usAxisFormatter } from '@/lib/axisFormat'
import { escapeHtml } from '@/lib/format'
import { fmtUs } from './format'
import { PHASES, autoUnit, sigDigits, type Heatmap, type LinkBandwidth, type MatrixMetric, type MemLine, type Phase } from './ascendModel'

export const PHASE_LABEL = {
  computing_us: 'ascend.computing',
  communication_not_overlapped_us: 'ascend.commNotOverlapped',
  free_us: 'ascend.free',
} as const

export function phaseColors(): Record<Phase, string> {
  const dark = theme.value === 'dark'
  return {
    computing_us: dark ? '#1fc3c4' : '#00a5a7',
    communication_not_overlapped_us: dark ? '#f0a55a' : '#f6903d',
    free_us: dark ? '#6b7585' : '#b8bec8',
  }
}

export function dangerColor(): string {
  return theme.value === 'dark' ? '#f07b77' : '#d9534f'
}

export function tooltipBase(p: ChartPalette) {
  return { ...tooltipColors(p), confine: true }
}

export function valueAxis(p: ChartPalette, name = 'ms') {
  return {
    type: 'value' as const,
    name,
    nameTextStyle: { color: p.subtext },
    axisLabel: { color: p.subtext },
    splitLine: { lineStyle: { color: p.split } },
  }
}

/** The grid, time axis (µs from the profile's start, to `lastUs`) and zoom of a chart over time. */
export function timeAxisParts(p: ChartPalette, lastUs: number) {
  return {
    grid: { left: 12, right: 24, top: 36, bottom: 56, containLabel: true },
    xAxis: {
      type: 'value' as const,
      axisLabel: { color: p.subtext, formatter: usAxisFormatter(lastUs), hideOverlap: true },
      splitLine: { lineStyle: { color: p.split } },
      axisLine: { lineStyle: { color: p.axis } },
    },
    dataZoom: [
      { type: 'inside' as const, filterMode: 'none' as const },
      { type: 'slider' as const, height: 18, bottom: 8, labelFormatter: (v: number) => fmtUs(v), textStyle: { color: p.subtext } },
    ],
  }
}

/** Stacked bars of the three phases: one per step (overview) or per rank (cluster). A slow rank's slow phase is
 * outlined in red (the segment that is actually slow), and the bar is labelled on top. */
export function phaseBarsOption(
  categories: string[],
  values: Record<Phase, number>[],
  slowPhase: (Phase | null)[] = [],
): EChartsOption {
  const p = chartPalette()
  const colors = phaseColors()
  const danger = dangerColor()
  const top = Math.max(0, ...values.map((v) => PHASES.reduce((n, ph) => n + (v[ph] || 0), 0)))
  return {
    backgroundColor: 'transparent',
    textStyle: { color: p.text },
    legend: { top: 0, textStyle: { color: p.text } },
    tooltip: { ...tooltipBase(p), trigger: 'axis', axisPointer: { type: 'shadow' }, valueFormatter: (v: unknown) => fmtUs(Number(v)) },
    grid: { left: 12, right: 20, top: 36, bottom: 8, containLabel: true },
    xAxis: {
      type: 'category',
      data: categories.map((c, i) =>
        slowPhase[i] ? { value: c, textStyle: { color: danger, fontWeight: 'bold' } } : { value: c },
      ),
      axisLabel: { color: p.text, interval: 0, hideOverlap: true },
      axisLine: { lineStyle: { color: p.axis } },
    },
    yAxis: {
      type: 'value',
      axisLabel: { color: p.subtext, formatter: usAxisFormatter(top) },
      splitLine: { lineStyle: { color: p.split } },
    },
    series: PHASES.map((phase, k) => ({
      name: t(PHASE_LABEL[phase]),
      type: 'bar',
      stack: 'step',
      barMaxWidth: 56,
      itemStyle: { color: colors[phase] },
      data: values.map((v, i) => {
        const outlined = slowPhase[i] === phase
        const top = k === PHASES.length - 1 && slowPhase[i] !== null && slowPhase[i] !== undefined
        if (!outlined && !top) return { value: v[phase] }
        return {
          value: v[phase],
          ...(outlined ? { itemStyle: { color: colors[phase], borderColor: danger, borderWidth: 2 } } : {}),
          ...(top
            ? { label: { show: true, position: 'top', color: danger, fontWeight: 'bold', formatter: `⚠ ${t('ascend.slow')}` } }
            : {}),
        }
      }),
    })),
  }
}

/** Compare: per operator type the difference to the base (µs), largest first; slower in red, faster in teal. */
export function diffBarsOption(rows: { op_type: string; diff_us: number; total_us: number; base_total_us: number }[]): EChartsOption {
  const p = chartPalette()
  const slower = dangerColor()
  const faster = phaseColors().computing_us
  const byName = new Map(rows.map((r) => [r.op_type, r]))
  return {
    backgroundColor: 'transparent',
    textStyle: { color: p.text },
    tooltip: {
      ...tooltipBase(p),
      trigger: 'item',
      formatter: (q: { name: string }) => {
        const r = byName.get(q.name)
        if (!r) return ''
        return (
          `<div class="tt"><div class="tt-title">${escapeHtml(r.op_type)}</div>` +
          `<div>${t('ascend.compareThis')}: ${fmtUs(r.total_us)}</div>` +
          `<div>${t('ascend.compareBase')}: ${fmtUs(r.base_total_us)}</div>` +
          `<div>${t('ascend.compareDiff')}: <b>${r.diff_us > 0 ? '+' : ''}${fmtUs(r.diff_us)}</b></div></div>`
        )
      },
    },
    grid: { left: 12, right: 24, top: 8, bottom: 8, containLabel: true },
    xAxis: {
      type: 'value',
      axisLabel: { color: p.subtext, formatter: usAxisFormatter(Math.max(0, ...rows.map((r) => Math.abs(r.diff_us)))), hideOverlap: true },
      splitLine: { lineStyle: { color: p.split } },
    },
    yAxis: {
      type: 'category',
      inverse: true,
      data: rows.map((r) => r.op_type),
      axisLabel: { color: p.text, width: 180, overflow: 'truncate' },
      axisLine: { lineStyle: { color: p.axis } },
    },
    series: [
      {
        type: 'bar',
        barMaxWidth: 18,
        data: rows.map((r) => ({ name: r.op_type, value: r.diff_us, itemStyle: { color: r.diff_us > 0 ? slower : faster } })),
      },
    ],
  }
}

/** Bandwidth per link type (GB/s), with transferred size and time in the tooltip. */
export function bandwidthOption(all: LinkBandwidth[]): EChartsOption {
  const p = chartPalette()
  const links = all.filter((l) => l.size_mb > 0)
  const byLink = new Map(links.map((l) => [l.link, l]))
  return {
    backgroundColor: 'transparent',
    textStyle: { color: p.text },
    tooltip: {
      ...tooltipBase(p),
      trigger: 'item',
      formatter: (q: { name: string }) => {
        const l = byLink.get(q.name)
        if (!l) return ''
        return (
          `<div class="tt"><div class="tt-title">${escapeHtml(l.link)}</div>` +
          `<div>${t('ascend.bandwidth')}: <b>${l.gbps === null ? '–' : l.gbps.toFixed(3)} GB/s</b></div>` +
          `<div>${t('ascend.size')}: ${l.size_mb.toFixed(3)} MB</div>` +
          `<div>${t('ascend.transitTime')}: ${l.time_ms.toFixed(3)} ms</div>` +
          `<div>${t('ascend.opCount')}: ${l.ops}</div></div>`
        )
      },
    },
    grid: { left: 12, right: 24, top: 24, bottom: 8, containLabel: true },
    xAxis: { type: 'category', data: links.map((l) => l.link), axisLabel: { color: p.text }, axisLine: { lineStyle: { color: p.axis } } },
    yAxis: {
      type: 'value',
      name: 'GB/s',
      nameTextStyle: { color: p.subtext },
      axisLabel: { color: p.subtext },
      splitLine: { lineStyle: { color: p.split } },
    },
    series: [
      {
        type: 'bar',
        barMaxWidth: 48,
        itemStyle: { color: p.series[1] },
        label: { show: true, position: 'top', color: p.subtext, formatter: (q: { value: number }) => (q.value ?? 0).toFixed(2) },
        data: links.map((l) => ({ name: l.link, value: l.gbps ?? 0 })),
      },
    ],
  }
}

/** The src->dst matrix of one op as a heatmap (y: source rank, x: destination rank). */
export function heatmapOption(h: Heatmap, metricLabel: string, unit: string): EChartsOption {
  const p = chartPalette()
  // one unit for the whole matrix, picked from its largest value; cells and scale in significant digits
  const su = autoUnit(unit, Math.max(Math.abs(h.min), Math.abs(h.max)))
  const show = (v: number, digits = 3) => sigDigits(v * su.scale, digits)
  const xs = h.dsts.map(String)
  const ys = h.srcs.map(String)
  return {
    backgroundColor: 'transparent',
    textStyle: { color: p.text },
    tooltip: {
      ...tooltipBase(p),
      trigger: 'item',
      formatter: (q: { value: [number, number, number, string] }) => {
        const [x, y, v, transport] = q.value
        return (
          `<div class="tt"><div class="tt-title">${ys[y]} → ${xs[x]}</div>` +
          `<div>${escapeHtml(metricLabel)}: <b>${show(v, 4)} ${su.unit}</b></div>` +
          (transport ? `<div>${t('ascend.transport')}: ${escapeHtml(transport)}</div>` : '') +
          '</div>'
        )
      },
    },
    grid: { left: 12, right: 90, top: 30, bottom: 8, containLabel: true },
    xAxis: {
      type: 'category',
      data: xs,
      name: t('ascend.dst'),
      nameLocation: 'middle',
      nameGap: 24,
      position: 'top',
      nameTextStyle: { color: p.subtext },
      axisLabel: { color: p.text },
      splitArea: { show: true },
    },
    yAxis: {
      type: 'category',
      data: ys,
      inverse: true,
      name: t('ascend.src'),
      nameTextStyle: { color: p.subtext },
      axisLabel: { color: p.text },
      splitArea: { show: true },
    },
    visualMap: {
      type: 'continuous',
      dimension: 2, // the value (the 4th dimension is the transport name)
      min: h.min,
      max: h.max > h.min ? h.max : h.min + 1,
      calculable: true,
      orient: 'vertical',
      right: 4,
      top: 'middle',
      textStyle: { color: p.subtext },
      inRange: { color: theme.value === 'dark' ? ['#1d3b4a', '#1fc3c4', '#f0a55a'] : ['#e6f7f7', '#00a5a7', '#f6903d'] },
      formatter: (v: number) => `${show(v)} ${su.unit}`,
    },
    series: [
      {
        type: 'heatmap',
        data: h.cells,
        label: { show: h.dsts.length <= 16, color: p.text, fontSize: 10, formatter: (q: { value: number[] }) => show(q.value[2]) },
        itemStyle: { borderColor: p.background, borderWidth: 1 },
        emphasis: { itemStyle: { borderColor: p.text, borderWidth: 1 } },
      },
    ],
  }
}

/** The src->dst matrix's metrics (communication tab, cluster matrix) and the heatmap of one. */
export const MATRIX_METRICS: { id: MatrixMetric; label: MessageKey; unit: string }[] = [
  { id: 'gbps', label: 'ascend.bandwidth', unit: 'GB/s' },
  { id: 'size_mb', label: 'ascend.size', unit: 'MB' },
  { id: 'time_ms', label: 'ascend.transitTime', unit: 'ms' },
]
export function matrixOption(h: Heatmap, metric: MatrixMetric): EChartsOption {
  const m = MATRIX_METRICS.find((x) => x.id === metric)!
  return heatmapOption(h, t(m.label), m.unit)
}

/** Memory over time: per component its allocated (solid) and reserved (dashed) MB. */
export function memoryOption(lines: MemLine[]): EChartsOption {
  const p = chartPalette()
  const components = [...new Set(lines.map((l) => l.component))]
  const color = (c: string) => p.series[components.indexOf(c) % p.series.length]
  const lastUs = Math.max(0, ...lines.map((l) => (l.points.length ? l.points[l.points.length - 1][0] : 0)))
  return {
    backgroundColor: 'transparent',
    textStyle: { color: p.text },
    legend: { type: 'scroll', top: 0, textStyle: { color: p.text } },
    tooltip: { ...tooltipBase(p), trigger: 'axis', valueFormatter: (v: unknown) => `${Number(v).toFixed(3)} MB` },
    ...timeAxisParts(p, lastUs),
    yAxis: valueAxis(p, 'MB'),
    series: lines.map((l) => ({
      name: `${l.component} · ${t(l.kind === 'allocated' ? 'profiler.allocated' : 'profiler.reserved')}`,
      type: 'line',
      step: 'end',
      showSymbol: false,
      itemStyle: { color: color(l.component) },
      lineStyle: { color: color(l.component), width: 1.5, type: l.kind === 'reserved' ? 'dashed' : 'solid' },
      data: l.points,
    })),
  }
}
