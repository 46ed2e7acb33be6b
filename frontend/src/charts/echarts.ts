// The ONE ECharts registration module: only the chart types and components the UI uses
// are registered (tree-shaken `echarts/core`). Views import `echarts` from here, never
// from 'echarts' directly. echarts-gl is registered lazily by `loadGl()` (landscape view only).
import * as echarts from 'echarts/core'
import { CustomChart, LineChart } from 'echarts/charts'
import {
  BrushComponent,
  DataZoomInsideComponent,
  GridComponent,
  LegendComponent,
  MarkAreaComponent,
  MarkPointComponent,
  TooltipComponent,
  VisualMapContinuousComponent,
} from 'echarts/components'
import { CanvasRenderer } from 'echarts/renderers'
import { BarChart, PieChart } from 'echarts/charts'
import { DataZoomSliderComponent } from 'echarts/components'
import { ParallelChart, ScatterChart } from 'echarts/charts'
import { ParallelComponent } from 'echarts/components'
import { HeatmapChart, SankeyChart } from 'echarts/charts'

echarts.use([
  LineChart,
  CustomChart,
  GridComponent,
  TooltipComponent,
  LegendComponent,
  DataZoomInsideComponent,
  BrushComponent,
  MarkAreaComponent,
  MarkPointComponent,
  VisualMapContinuousComponent,
  CanvasRenderer,
])

// Profiler views: operator pie/bar, step bars, timeline slider.
echarts.use([PieChart, BarChart, DataZoomSliderComponent])

// Lineage views: parallel coordinates (brushable axes), importance bars, parameter scatter.
echarts.use([ParallelChart, ParallelComponent, BarChart, ScatterChart])

// Ascend profiler views: the communication src->dst matrix heatmap.
echarts.use([HeatmapChart])

// Old Ascend/GPU profiler layout: FLOPs per scope.
echarts.use([SankeyChart])

let glPromise: Promise<void> | null = null

/** Registers echarts-gl (surface, line3D, scatter3D, grid3D). Loaded on first use only. */
export function loadGl(): Promise<void> {
  if (!glPromise) {
    glPromise = Promise.all([import('echarts-gl/charts'), import('echarts-gl/components')]).then(
      ([charts, components]) => {
        echarts.use([charts.SurfaceChart, charts.Line3DChart, charts.Scatter3DChart, components.Grid3DComponent])
      },
    )
  }
  return glPromise
}

/** A chart's "is WebGL there?": false without WebGL or when echarts-gl cannot load; on its first success echarts-gl
 * is registered and `recreate` (useChart's) makes the chart again with it. */
export function glEnsurer(recreate: () => void): () => Promise<boolean> {
  let ready = false
  return async () => {
    if (ready) return true
    const probe = document.createElement('canvas')
    if (!(probe.getContext('webgl') || probe.getContext('experimental-webgl'))) return false
    try {
      await loadGl()
      ready = true
      recreate()
      return true
    } catch {
      return false
    }
  }
}

export { echarts }
export type ECharts = echarts.ECharts
export type EChartsOption = echarts.EChartsCoreOption
