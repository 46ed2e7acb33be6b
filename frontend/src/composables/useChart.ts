// The one chart composable: owns an ECharts instance's init, resize and dispose, and
// publishes what is plotted for browser tests (see frontend/README.md, "Test hooks"):
//   * attributes on the container: data-chart-id, data-series-count, data-point-count,
//     data-last-x, data-last-y, data-last-smoothed-y, data-rendered ("true" once drawn)
//   * window.__charts[id] = { id, kind, series: [...], updatedAt, instance() }
import { onBeforeUnmount, onMounted, shallowRef, watch, type Ref } from 'vue'
import { echarts, type ECharts, type EChartsOption } from '@/charts/echarts'

export interface SeriesSummary {
  name: string
  /** number of plotted points (null values included) */
  points: number
  lastX: number | null
  lastY: number | null
  lastSmoothedY?: number | null
  color?: string
}

export interface ChartSummary {
  id: string
  kind: string
  series: SeriesSummary[]
  updatedAt: number
  instance: () => ECharts | null
  extra?: Record<string, unknown>
}

declare global {
  interface Window {
    __charts?: Record<string, ChartSummary>
  }
}

function registry(): Record<string, ChartSummary> {
  if (!window.__charts) window.__charts = {}
  return window.__charts
}

export interface UseChartOptions {
  /** Stable id, used in window.__charts and data-chart-id. */
  id: () => string
  kind: string
  /** Called once the instance exists (e.g. to bind events). */
  onInit?: (chart: ECharts) => void
  /**
   * Make the instance at the first setOption, not at mount (~5-10 ms each): a page mounting 12 charts whose
   * first draws are queued (lib/drawQueue.ts) does not make 12 instances before drawing the first chart.
   */
  lazy?: boolean
}

export function useChart(el: Ref<HTMLElement | null>, opts: UseChartOptions) {
  const chart = shallowRef<ECharts | null>(null)
  let observer: ResizeObserver | null = null
  let pending: { option: EChartsOption; notMerge: boolean } | null = null
  let registeredId: string | null = null
  let frame = 0
  let lastOption: { option: EChartsOption; notMerge: boolean } | null = null
  let lastSummary: { series: SeriesSummary[]; extra?: Record<string, unknown> } | null = null

  function init(): ECharts | null {
    if (chart.value || !el.value) return chart.value
    const instance = echarts.init(el.value, undefined, { renderer: 'canvas' })
    chart.value = instance
    opts.onInit?.(instance)
    if (pending) {
      instance.setOption(pending.option, { notMerge: pending.notMerge, lazyUpdate: false })
      pending = null
    }
    return instance
  }

  function resize(): void {
    if (frame) cancelAnimationFrame(frame)
    frame = requestAnimationFrame(() => {
      frame = 0
      chart.value?.resize()
    })
  }

  function observe(node: HTMLElement | null): void {
    observer?.disconnect()
    if (node && typeof ResizeObserver !== 'undefined') {
      if (!observer) observer = new ResizeObserver(resize)
      observer.observe(node)
    }
  }

  onMounted(() => {
    if (!opts.lazy) init()
    observe(el.value)
    window.addEventListener('resize', resize)
  })
  // The container may appear later (e.g. inside a v-if that opens once the run is ready) or be
  // replaced: (re)create the instance on the new node.
  watch(el, (node, old) => {
    if (node === old) return
    if (chart.value && chart.value.getDom() !== node) {
      const last = lastOption
      chart.value.dispose()
      chart.value = null
      if (last && !pending) pending = last
    }
    if (node && (!opts.lazy || pending)) init()
    observe(node)
    if (node && lastSummary) publish(lastSummary.series, lastSummary.extra)
  })

  onBeforeUnmount(() => {
    observer?.disconnect()
    window.removeEventListener('resize', resize)
    if (frame) cancelAnimationFrame(frame)
    chart.value?.dispose()
    chart.value = null
    if (registeredId && window.__charts) delete window.__charts[registeredId]
  })

  /** Sets the option (merging by default) and publishes the test summary. */
  function setOption(option: EChartsOption, notMerge = false, summary?: SeriesSummary[], extra?: Record<string, unknown>) {
    const instance = chart.value ?? init()
    if (notMerge || !lastOption) lastOption = { option, notMerge: true }
    if (instance) instance.setOption(option, { notMerge, lazyUpdate: false })
    else pending = { option, notMerge }
    publish(summary ?? [], extra)
  }

  function publish(series: SeriesSummary[], extra?: Record<string, unknown>): void {
    lastSummary = { series, extra }
    const id = opts.id()
    if (registeredId && registeredId !== id && window.__charts) delete window.__charts[registeredId]
    registeredId = id
    registry()[id] = {
      id,
      kind: opts.kind,
      series,
      updatedAt: Date.now(),
      instance: () => chart.value,
      extra,
    }
    const node = el.value
    if (!node) return
    const first = series[0]
    node.dataset.chartId = id
    node.dataset.seriesCount = String(series.length)
    node.dataset.pointCount = String(series.reduce((n, s) => n + s.points, 0))
    node.dataset.lastX = first?.lastX == null ? '' : String(first.lastX)
    node.dataset.lastY = first?.lastY == null ? '' : String(first.lastY)
    node.dataset.lastSmoothedY = first?.lastSmoothedY == null ? '' : String(first.lastSmoothedY)
    node.dataset.rendered = 'true'
  }

  /**
   * Disposes and re-creates the instance. Needed after registering new chart types at run
   * time (echarts-gl): an instance only runs the layouts that were registered when it was made.
   */
  function recreate(): void {
    chart.value?.dispose()
    chart.value = null
    init()
  }

  function dataUrl(background: string): string | null {
    return chart.value?.getDataURL({ type: 'png', pixelRatio: 2, backgroundColor: background }) ?? null
  }

  return { chart, setOption, resize, dataUrl, publish, recreate }
}
