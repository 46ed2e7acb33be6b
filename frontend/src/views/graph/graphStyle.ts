// Colours of graph nodes, clusters and edges for the two themes (MindInsight's legend:
// namespace teal rectangles, aggregation yellow, operators light-blue ellipses, constants small
// circles, dynamic-shape nodes green, virtual nodes orange). Applied as SVG attributes, so an
// exported SVG/PNG looks like the screen.
import { theme } from '@/state'
import type { DisplayLeaf, NodeKind } from './graphModel'

export interface NodePaint {
  fill: string
  stroke: string
  text: string
  dash?: string
}

export interface GraphPalette {
  background: string
  edge: string
  edgeLabel: string
  highlight: string
  clusterFill: [string, string]
  clusterStroke: string
  clusterText: string
  selected: string
  kinds: Record<NodeKind | 'dynamic', NodePaint>
  /** Marked nodes (graph explorer `markOf`): e.g. the debugger's NaN/Inf nodes. */
  marks: Record<NodeMark, NodePaint>
}

/** What a mark says about a drawn node: `bad` holds (or contains) a NaN/Inf tensor or a hit;
 * `first` is (or contains) the first op where NaN/Inf appears; `dumped` has dumped tensors. */
export type NodeMark = 'first' | 'bad' | 'dumped'

export function graphPalette(): GraphPalette {
  if (theme.value === 'dark') {
    return {
      background: '#1c212b',
      edge: '#7d8796',
      edgeLabel: '#9aa4b2',
      highlight: '#ff9f43',
      clusterFill: ['#202733', '#252d3a'],
      clusterStroke: '#3f7f86',
      clusterText: '#c9d1dc',
      selected: '#ff6b6b',
      kinds: {
        scope: { fill: '#124e52', stroke: '#1fc3c4', text: '#e6f7f7' },
        aggregation: { fill: '#5a4a12', stroke: '#e6b422', text: '#fbefc6' },
        op: { fill: '#1d3b57', stroke: '#5b9bd5', text: '#dbe9f7' },
        param: { fill: '#273140', stroke: '#8ca3bd', text: '#d7dce3' },
        const: { fill: '#1d3b57', stroke: '#5b9bd5', text: '#aab3c0' },
        pager: { fill: '#5a3a1a', stroke: '#e8893a', text: '#fde3c8', dash: '4 3' },
        dynamic: { fill: '#0c6b3e', stroke: '#35c07a', text: '#e8fff2' },
      },
      marks: {
        first: { fill: '#7a1f1f', stroke: '#ff6b6b', text: '#ffecec' },
        bad: { fill: '#4a2330', stroke: '#ff8a8a', text: '#ffe3e3', dash: '5 3' },
        dumped: { fill: '#1d3b57', stroke: '#4dd4a8', text: '#dbe9f7' },
      },
    }
  }
  return {
    background: '#ffffff',
    edge: '#8a919c',
    edgeLabel: '#6b7280',
    highlight: '#f08c00',
    clusterFill: ['#f5f8fb', '#ebf1f6'],
    clusterStroke: '#9cc9cb',
    clusterText: '#3a4150',
    selected: '#e03131',
    kinds: {
      scope: { fill: '#b4f0f0', stroke: '#00a5a7', text: '#1f2d3a' },
      aggregation: { fill: '#fde8a6', stroke: '#e0ac16', text: '#3d3000' },
      op: { fill: '#cfe6fb', stroke: '#5b9bd5', text: '#1f2d3a' },
      param: { fill: '#eef2f7', stroke: '#8ca3bd', text: '#303133' },
      const: { fill: '#cfe6fb', stroke: '#5b9bd5', text: '#5f6673' },
      pager: { fill: '#fde0c4', stroke: '#e8893a', text: '#5a2e00', dash: '4 3' },
      dynamic: { fill: '#0a9b55', stroke: '#067a42', text: '#ffffff' },
    },
    marks: {
      first: { fill: '#e03131', stroke: '#a51111', text: '#ffffff' },
      bad: { fill: '#ffe3e3', stroke: '#e03131', text: '#5c0a0a', dash: '5 3' },
      dumped: { fill: '#cfe6fb', stroke: '#12a37a', text: '#1f2d3a' },
    },
  }
}

export function paintGraphNode(leaf: DisplayLeaf, pal: GraphPalette): NodePaint {
  if (leaf.node?.is_dynamic_shape_node) return pal.kinds.dynamic
  return pal.kinds[leaf.kind]
}

/** A marked node keeps its shape; `dumped` only changes the outline, the others the whole paint. */
export function markPaint(base: NodePaint, mark: NodeMark, pal: GraphPalette): NodePaint {
  const m = pal.marks[mark]
  return mark === 'dumped' ? { ...base, stroke: m.stroke } : m
}

/** SVG shape of a node kind: rectangles for scopes, octagons for aggregations, ellipses else. */
export function shapeOf(kind: NodeKind): 'rect' | 'octagon' | 'ellipse' | 'circle' {
  if (kind === 'scope' || kind === 'pager') return 'rect'
  if (kind === 'aggregation') return 'octagon'
  if (kind === 'const') return 'circle'
  return 'ellipse'
}

export function octagonPoints(w: number, h: number): string {
  const c = Math.min(h / 3.2, w / 4)
  return [
    [c, 0], [w - c, 0], [w, c], [w, h - c], [w - c, h], [c, h], [0, h - c], [0, c],
  ].map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ')
}
