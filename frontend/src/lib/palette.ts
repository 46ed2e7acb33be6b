// Chart colours for the two themes. Charts read `chartPalette()` when they build options
// and re-render when the theme changes.
import { theme } from '@/state'

export const SERIES_COLORS = [
  '#00a5a7', // MindInsight teal
  '#5b8ff9',
  '#f6903d',
  '#e8684a',
  '#9270ca',
  '#5ad8a6',
  '#f6bd16',
  '#ff9d4d',
  '#269a99',
  '#ff99c3',
]

export interface ChartPalette {
  text: string
  subtext: string
  axis: string
  split: string
  background: string
  tooltipBg: string
  tooltipBorder: string
  series: string[]
}

export function chartPalette(): ChartPalette {
  return theme.value === 'dark'
    ? {
        text: '#d7dce3',
        subtext: '#9aa4b2',
        axis: '#5b6473',
        split: '#2d3440',
        background: '#1c212b',
        tooltipBg: 'rgba(32,38,49,0.96)',
        tooltipBorder: '#3b4454',
        series: SERIES_COLORS,
      }
    : {
        text: '#303133',
        subtext: '#6b7280',
        axis: '#b8bec8',
        split: '#eceff3',
        background: '#ffffff',
        tooltipBg: 'rgba(255,255,255,0.97)',
        tooltipBorder: '#dcdfe6',
        series: SERIES_COLORS,
      }
}

/** A chart tooltip in the theme's colours (`fontSize`: its text's, when not ECharts' default). */
export function tooltipColors(p: ChartPalette, fontSize?: number) {
  return { backgroundColor: p.tooltipBg, borderColor: p.tooltipBorder, textStyle: fontSize ? { color: p.text, fontSize } : { color: p.text } }
}

export function seriesColor(index: number): string {
  return SERIES_COLORS[((index % SERIES_COLORS.length) + SERIES_COLORS.length) % SERIES_COLORS.length]
}

/** Mixes a #rrggbb colour with white (t>0) or black (t<0). */
export function shade(hex: string, t: number): string {
  const n = parseInt(hex.slice(1), 16)
  const c = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((v) =>
    Math.round(t >= 0 ? v + (255 - v) * t : v * (1 + t)),
  )
  return `rgb(${c[0]},${c[1]},${c[2]})`
}
