// msprobe graph_visualize (issue 35): GET /v1/mindinsight/msprobe/{graphs,graph,graph/node}; POST graph/build builds
// the same compare graph from two dumps (its id, `built:...`, is answered by the same GETs).
import { getJson, postJson, type RequestOptions } from './client'
import type { CompareSide } from './msprobeCompareApi'

export interface VisGraphFile {
  graph_id: string
  kind: 'build' | 'compare' | null
  graphs: { graph: string; side: 'NPU' | 'Bench'; step: number; rank: number; nodes: number }[]
  error: string | null
}

export const isBuilt = (graphId: string): boolean => graphId.startsWith('built:')

export interface VisNode {
  name: string
  parent: string | null
  type: number | null
  order: number
  precision_index: number | null
  overflow_level: string | null
  matched: boolean
}

export interface VisColor {
  color: string
  range: number[]
  level: string | null
  description: string | null
}

export interface VisGraph {
  graph_id: string
  kind: string | null
  side: string
  step: number
  rank: number
  colors: VisColor[]
  nodes: VisNode[]
}

export const msprobeGraphsApi = {
  /** `graph_id`: a built graph's id, listed too (built again when the server no longer keeps it). */
  graphs: (q: { graph_id?: string } = {}, o?: RequestOptions) => getJson<{ graphs: VisGraphFile[] }>('msprobe/graphs', { ...q }, o),
  build: (body: { target: CompareSide; bench: CompareSide; mode?: string; mapping?: Record<string, unknown> }, o?: RequestOptions) =>
    postJson<VisGraphFile>('msprobe/graph/build', body, {}, o),
  graph: (q: { graph_id: string; side: string; step?: number; rank?: number }, o?: RequestOptions) => getJson<VisGraph>('msprobe/graph', { ...q }, o),
  node: (q: { graph_id: string; name: string; side: string; step?: number; rank?: number }, o?: RequestOptions) =>
    getJson<{ inputs: Record<string, Record<string, string>>; outputs: Record<string, Record<string, string>>; stack: string[] }>('msprobe/graph/node', { ...q }, o),
}

/** The legend colour of a precision index (the file's own node_colors ranges: [lo, hi), the last one closed);
 * unmatched nodes take the range-less colour. */
export function precisionColor(colors: VisColor[], node: VisNode): string | null {
  if (!node.matched) return colors.find((c) => !c.range.length)?.color ?? null
  const v = node.precision_index
  if (v === null) return null
  const ranged = colors.filter((c) => c.range.length === 2)
  const hit = ranged.find((c, i) => v >= c.range[0] && (v < c.range[1] || (i === ranged.length - 1 && v <= c.range[1])))
  return hit?.color ?? null
}

export interface TrendMatrix {
  metrics: string[]
  ranks: number[]
  metric: string | null
  rank: number | null
  stat: string
  targets: string[]
  steps: number[]
  /** values[i][j]: target i at step j; null = not recorded, or NaN (data2db stores NaN as NULL) */
  values: (number | null)[][]
  /** trend: a data2db .trend.db; monitor: a folder of monitor CSVs */
  kind?: 'trend' | 'monitor'
  /** the statistics the file holds (zeros and nans: a monitor's) */
  stats?: string[]
  /** monitor only: CSV rows and files not read, and whether a bound cut the output */
  skipped_rows?: number
  skipped_files?: { file: string; error: string }[]
  truncated?: boolean
}

export const msprobeTrendApi = {
  trend: (q: { file_id: string; metric?: string; stat?: string; rank?: number }, o?: RequestOptions) =>
    getJson<TrendMatrix>('msprobe/trend', { ...q }, o),
}

