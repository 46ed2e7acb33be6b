// The client-side model of the computational graph: the scope listings loaded so far
// (graphs/nodes), which scopes are expanded, and from that the displayed tree (leaves and
// clusters), the edges between displayed nodes, and the DOT text handed to Graphviz.
// Pure TypeScript, no Vue: unit-tested in graphModel.test.ts.
import type { GraphNode } from '@/api/types'
import { formatWallTime } from '@/lib/format'

/** MindInsight's UI refuses scopes with more children than this; we page them instead. */
export const PAGE_THRESHOLD = 1500
/** Children per page of a paged scope (the server's `limit` is at most 1000). */
export const PAGE_SIZE = 1000
/** Edge labels (tensor shapes) are drawn only on graphs with at most this many edges. */
export const MAX_LABELLED_EDGES = 150
/** Siblings without edges among them are stacked into a grid from this many on. */
export const GRID_MIN = 24

export type NodeKind = 'scope' | 'aggregation' | 'op' | 'param' | 'const' | 'pager'

export interface EdgeInfo {
  shape?: number[][]
  data_type?: string
  edge_type?: string
}

export function nodeKind(n: GraphNode): NodeKind {
  if (n.type === 'name_scope') return 'scope'
  if (n.type === 'aggregation_scope') return 'aggregation'
  if (n.type === 'Parameter') return 'param'
  if (n.type === 'Const') return 'const'
  return 'op'
}

export function isScope(n: GraphNode | undefined): boolean {
  return !!n && (n.type === 'name_scope' || n.type === 'aggregation_scope')
}

export function lastSegment(name: string): string {
  const i = name.lastIndexOf('/')
  return i < 0 ? name : name.slice(i + 1)
}

/**
 * A graph file in the file select: a summary file by the time in its name and its device/host suffix
 * (`2026-09-21 16:23:20 · demo_MS`), which fits the select; any other name (`ms_output_optimize.pb`) as it is.
 * The page shows the whole name under the select.
 */
export function graphFileLabel(tag: string): string {
  const m = /summary\.(\d{9,11})\.\d+\.(.+)$/.exec(tag)
  return m ? `${formatWallTime(Number(m[1]))} · ${m[2]}` : tag
}

/** All scopes from the root down to (excluding) `name`: 'a/b/c' -> ['a', 'a/b']. */
export function ancestors(name: string): string[] {
  const out: string[] = []
  let i = name.indexOf('/')
  while (i >= 0) {
    out.push(name.slice(0, i))
    i = name.indexOf('/', i + 1)
  }
  return out
}

export function formatShape(shape: number[][] | undefined): string {
  if (!shape || !shape.length) return ''
  return shape.map((s) => (s.length ? s.join('×') : 'scalar')).join(', ')
}

/** `DT_TENSOR[DT_FLOAT32]` -> `float32`; `DT_TUPLE[...]` -> `tuple`; `DT_UNDEFINED` -> ''. */
export function shortType(dt: string | undefined): string {
  if (!dt || dt === 'DT_UNDEFINED') return ''
  if (/^DT_(TUPLE|LIST)/.test(dt)) return dt.startsWith('DT_LIST') ? 'list' : 'tuple'
  const m = /^DT_TENSOR\[DT_([A-Z0-9_]+)\]$/.exec(dt)
  return m ? m[1].toLowerCase() : dt.replace(/^DT_/, '').toLowerCase()
}

/** Short edge label: the dims of one tensor, or the number of tensors of a tuple. */
export function edgeLabel(shape: number[][] | undefined): string {
  if (!shape || !shape.length) return ''
  if (shape.length > 1) return `${shape.length} tensors`
  return formatShape(shape)
}

const PAGER_SUFFIX = '/\u2026'
export function pagerName(scope: string): string {
  return scope + PAGER_SUFFIX
}
export function isPagerName(name: string): boolean {
  return name.endsWith(PAGER_SUFFIX)
}
export function pagerScope(name: string): string {
  return name.slice(0, -PAGER_SUFFIX.length)
}

export interface DisplayLeaf {
  name: string
  kind: NodeKind
  label: string
  w: number
  h: number
  node?: GraphNode
  /** Hover text; the full name when absent. */
  title?: string
}

export interface DisplayCluster {
  name: string
  label: string
  children: (DisplayLeaf | DisplayCluster)[]
  cluster: true
}

export interface DisplayEdge {
  from: string
  to: string
  count: number
  control: boolean
  label: string
  title: string
}

export interface DisplayGraph {
  root: (DisplayLeaf | DisplayCluster)[]
  leaves: DisplayLeaf[]
  clusters: DisplayCluster[]
  edges: DisplayEdge[]
}

const CHAR_W = 6.6
const MAX_LABEL = 30

export function shortLabel(text: string): string {
  return text.length > MAX_LABEL ? text.slice(0, MAX_LABEL - 1) + '…' : text
}

function textWidth(text: string): number {
  return text.length * CHAR_W
}

/** Box size of a displayed node, in SVG px (= Graphviz points). */
export function nodeSize(kind: NodeKind, label: string): { w: number; h: number } {
  const tw = textWidth(label)
  switch (kind) {
    case 'scope':
      return { w: Math.max(90, tw + 28), h: 34 }
    case 'aggregation':
      return { w: Math.max(90, tw + 34), h: 32 }
    case 'param':
      return { w: Math.max(60, tw + 26), h: 24 }
    case 'const':
      return { w: Math.max(30, tw + 8), h: 28 }
    case 'pager':
      return { w: Math.max(120, tw + 24), h: 32 }
    default:
      return { w: Math.max(70, tw + 34), h: 30 }
  }
}

export class GraphStore {
  nodes = new Map<string, GraphNode>()
  children = new Map<string, string[]>()
  childSet = new Map<string, Set<string>>()
  /** Paged scopes: total children and the page shown. */
  total = new Map<string, number>()
  page = new Map<string, number>()
  expanded = new Set<string>()

  clear(): void {
    this.nodes.clear()
    this.children.clear()
    this.childSet.clear()
    this.total.clear()
    this.page.clear()
    this.expanded.clear()
  }

  setChildren(scope: string, nodes: GraphNode[], total?: number, page?: number): void {
    const names: string[] = []
    for (const n of nodes) {
      this.nodes.set(n.name, n)
      names.push(n.name)
    }
    this.children.set(scope, names)
    this.childSet.set(scope, new Set(names))
    if (total !== undefined && total > nodes.length) {
      this.total.set(scope, total)
      this.page.set(scope, page ?? 0)
    } else {
      this.total.delete(scope)
      this.page.delete(scope)
    }
  }

  /**
   * Stores a whole listing; when it is bigger than PAGE_THRESHOLD keeps only the page that
   * holds `focus` (or the first page).
   */
  setListing(scope: string, nodes: GraphNode[], focus?: string): void {
    if (nodes.length <= PAGE_THRESHOLD) {
      this.setChildren(scope, nodes)
      return
    }
    let page = 0
    if (focus) {
      const i = nodes.findIndex((n) => n.name === focus || focus.startsWith(n.name + '/'))
      if (i >= 0) page = Math.floor(i / PAGE_SIZE)
    }
    this.setChildren(scope, nodes.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE), nodes.length, page)
  }

  isLoaded(scope: string): boolean {
    return this.children.has(scope)
  }

  pageCount(scope: string): number {
    const t = this.total.get(scope)
    return t === undefined ? 1 : Math.ceil(t / PAGE_SIZE)
  }

  /**
   * The displayed node that stands for `name`: the node itself when shown, else its nearest
   * collapsed ancestor; a paged scope's pager when it sits on another page; undefined when
   * nothing shown stands for it.
   */
  visibleOf(name: string, cache?: Map<string, string | undefined>): string | undefined {
    const hit = cache?.get(name)
    if (hit !== undefined || cache?.has(name)) return hit
    let container = ''
    let result: string | undefined
    let from = 0
    for (;;) {
      const j = name.indexOf('/', from)
      const prefix = j < 0 ? name : name.slice(0, j)
      const set = this.childSet.get(container)
      if (set?.has(prefix)) {
        if (j >= 0 && this.expanded.has(prefix)) {
          container = prefix
        } else {
          result = prefix
          break
        }
      } else if (set && this.total.has(container)) {
        result = pagerName(container)
        break
      }
      if (j < 0) break
      from = j + 1
    }
    cache?.set(name, result)
    return result
  }

  leafFor(n: GraphNode): DisplayLeaf {
    const kind = nodeKind(n)
    const label = shortLabel(lastSegment(n.name))
    return { name: n.name, kind, label, node: n, ...nodeSize(kind, label) }
  }

  pagerFor(scope: string): DisplayLeaf {
    const label = `${(this.total.get(scope) ?? 0).toLocaleString('en')} nodes · page ${(this.page.get(scope) ?? 0) + 1}/${this.pageCount(scope)}`
    return { name: pagerName(scope), kind: 'pager', label, ...nodeSize('pager', label) }
  }

  display(): DisplayGraph {
    const leaves: DisplayLeaf[] = []
    const clusters: DisplayCluster[] = []
    const build = (scope: string): (DisplayLeaf | DisplayCluster)[] => {
      const out: (DisplayLeaf | DisplayCluster)[] = []
      for (const name of this.children.get(scope) ?? []) {
        const n = this.nodes.get(name)
        if (!n) continue
        if (this.expanded.has(name) && this.children.has(name)) {
          const c: DisplayCluster = { name, label: shortLabel(lastSegment(name)), children: build(name), cluster: true }
          clusters.push(c)
          out.push(c)
        } else {
          const leaf = this.leafFor(n)
          leaves.push(leaf)
          out.push(leaf)
        }
      }
      if (this.total.has(scope)) {
        const p = this.pagerFor(scope)
        leaves.push(p)
        out.push(p)
      }
      return out
    }
    const root = build('')
    return { root, leaves, clusters, edges: this.edges(leaves) }
  }

  edges(leaves: DisplayLeaf[]): DisplayEdge[] {
    const cache = new Map<string, string | undefined>()
    const byKey = new Map<string, DisplayEdge>()
    const add = (from: string | undefined, to: string | undefined, info: EdgeInfo | undefined) => {
      if (!from || !to || from === to) return
      const key = from + '\n' + to
      let e = byKey.get(key)
      if (!e) {
        const shape = edgeLabel(info?.shape)
        const dt = shortType(info?.data_type)
        e = {
          from,
          to,
          count: 0,
          control: info?.edge_type === 'control',
          label: shape,
          title: [dt, shape].filter(Boolean).join(' '),
        }
        byKey.set(key, e)
      }
      e.count++
      if (info?.edge_type !== 'control') e.control = false
    }
    for (const leaf of leaves) {
      const n = leaf.node
      if (!n) continue
      for (const [src, info] of Object.entries(n.input ?? {})) add(this.visibleOf(src, cache), leaf.name, info as EdgeInfo)
      for (const [dst, info] of Object.entries(n.output ?? {})) add(leaf.name, this.visibleOf(dst, cache), info as EdgeInfo)
    }
    // Each edge is seen from both of its ends: halve the counts taken twice.
    const out = [...byKey.values()]
    for (const e of out) {
      const n = Math.ceil(e.count / 2)
      if (n > 1) e.label = `${n} tensors`
    }
    return out
  }
}

// ------------------------------------------------------------------ DOT

function q(s: string): string {
  return '"' + s.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"'
}

export interface GridBlock {
  members: DisplayLeaf[]
  cols: number
  cellW: number
  cellH: number
}

export interface DotMaps {
  /** dot id -> display name */
  ids: Map<string, string>
  /** dot id of a block node -> the siblings drawn in a grid inside it */
  blocks: Map<string, GridBlock>
}

/** Graphviz input for a displayed graph. Node ids are short (`n12`, `cluster_3`). */
export function toDot(g: DisplayGraph, direction: 'TB' | 'LR' = 'TB'): { dot: string; maps: DotMaps } {
  const ids = new Map<string, string>()
  const idOf = new Map<string, string>()
  const containerOf = new Map<string, string>()
  const members = new Map<string, string[]>()
  const lineOf = new Map<string, number>()
  let k = 0
  const lines: string[] = [
    'digraph g {',
    `graph [rankdir=${direction} nodesep=0.28 ranksep=0.42 fontsize=12 fontname="Helvetica" compound=true];`,
    'node [fixedsize=true label="" shape=box];',
    'edge [fontsize=9 fontname="Helvetica" arrowsize=0.7];',
  ]
  const emit = (items: (DisplayLeaf | DisplayCluster)[], indent: string, container: string) => {
    for (const it of items) {
      if ('cluster' in it) {
        const id = `cluster_${k++}`
        ids.set(id, it.name)
        lines.push(`${indent}subgraph ${id} { graph [label=${q(it.label)} margin=14];`)
        if (!it.children.length) {
          const pid = `p${k++}`
          lines.push(`${indent}  ${pid} [width=0.6 height=0.2 style=invis];`)
        }
        emit(it.children, indent + '  ', it.name)
        lines.push(`${indent}}`)
      } else {
        const id = `n${k++}`
        ids.set(id, it.name)
        idOf.set(it.name, id)
        containerOf.set(it.name, container)
        if (!members.has(container)) members.set(container, [])
        members.get(container)!.push(it.name)
        lineOf.set(it.name, lines.length)
        const shape = it.kind === 'scope' || it.kind === 'pager' ? 'box' : it.kind === 'aggregation' ? 'octagon' : 'ellipse'
        lines.push(`${indent}${id} [width=${(it.w / 72).toFixed(3)} height=${(it.h / 72).toFixed(3)} shape=${shape}];`)
      }
    }
  }
  emit(g.root, '  ', '')
  // Many siblings on one rank (e.g. the children of an aggregation scope) would make one very
  // long row, and Graphviz is slow to order it: such a rank becomes one block node, whose members
  // are placed in a grid inside it (parseLayout) and whose edges are the members' edges, merged.
  const blocks = new Map<string, GridBlock>()
  const blockOf = new Map<string, string>()
  const leafByName = new Map(g.leaves.map((l) => [l.name, l]))
  for (const group of wideRanks(g.edges, containerOf, members)) {
    const id = `b${k++}`
    const ms = group.map((n) => leafByName.get(n)!).filter(Boolean)
    const cols = Math.max(4, Math.ceil(Math.sqrt(ms.length * 0.4)))
    const cellW = Math.max(...ms.map((m) => m.w)) + 14
    const cellH = Math.max(...ms.map((m) => m.h)) + 14
    blocks.set(id, { members: ms, cols, cellW, cellH })
    for (const m of ms) {
      blockOf.set(m.name, id)
      lines[lineOf.get(m.name)!] = ''
    }
    const first = lineOf.get(ms[0].name)!
    const w = cols * cellW
    const h = Math.ceil(ms.length / cols) * cellH
    lines[first] = `  ${id} [width=${(w / 72).toFixed(3)} height=${(h / 72).toFixed(3)} shape=box];`
  }
  const dotId = (name: string) => blockOf.get(name) ?? idOf.get(name)
  const seen = new Set<string>()
  const labelled = g.edges.length <= MAX_LABELLED_EDGES
  for (const e of g.edges) {
    const a = dotId(e.from)
    const b = dotId(e.to)
    if (!a || !b || a === b) continue
    const merged = a !== idOf.get(e.from) || b !== idOf.get(e.to)
    if (merged) {
      if (seen.has(a + '>' + b)) continue
      seen.add(a + '>' + b)
    }
    const attrs: string[] = []
    if (labelled && e.label && !merged) attrs.push(`label=${q(e.label)}`)
    if (e.control) attrs.push('style=dashed')
    lines.push(`  ${a} -> ${b}${attrs.length ? ' [' + attrs.join(' ') + ']' : ''};`)
  }
  lines.push('}')
  return { dot: lines.filter((x) => x !== '').join('\n'), maps: { ids, blocks } }
}

/** The ranks (longest path inside their container) that hold GRID_MIN or more siblings. */
function wideRanks(edges: DisplayEdge[], containerOf: Map<string, string>, members: Map<string, string[]>): string[][] {
  const out: string[][] = []
  const succ = new Map<string, string[]>()
  const indeg = new Map<string, number>()
  for (const e of edges) {
    if (containerOf.get(e.from) === undefined || containerOf.get(e.from) !== containerOf.get(e.to)) continue
    if (!succ.has(e.from)) succ.set(e.from, [])
    succ.get(e.from)!.push(e.to)
    indeg.set(e.to, (indeg.get(e.to) ?? 0) + 1)
  }
  for (const names of members.values()) {
    if (names.length < GRID_MIN) continue
    // Longest-path ranks inside the container (Kahn); nodes on a cycle keep rank 0.
    const rank = new Map<string, number>()
    const deg = new Map<string, number>()
    const queue: string[] = []
    for (const n of names) {
      deg.set(n, indeg.get(n) ?? 0)
      rank.set(n, 0)
      if (!deg.get(n)) queue.push(n)
    }
    for (let i = 0; i < queue.length; i++) {
      const n = queue[i]
      for (const m of succ.get(n) ?? []) {
        rank.set(m, Math.max(rank.get(m) ?? 0, (rank.get(n) ?? 0) + 1))
        const d = (deg.get(m) ?? 0) - 1
        deg.set(m, d)
        if (d === 0) queue.push(m)
      }
    }
    const byRank = new Map<number, string[]>()
    for (const n of names) {
      const r = rank.get(n) ?? 0
      if (!byRank.has(r)) byRank.set(r, [])
      byRank.get(r)!.push(n)
    }
    for (const group of byRank.values()) if (group.length >= GRID_MIN) out.push(group)
  }
  return out
}

// ------------------------------------------------------------------ Graphviz json0 -> layout

export interface LaidNode {
  name: string
  x: number
  y: number
  w: number
  h: number
}
export interface LaidCluster {
  name: string
  x: number
  y: number
  w: number
  h: number
  lx: number
  ly: number
  depth: number
}
export interface LaidEdge {
  from: string
  to: string
  d: string
  lx?: number
  ly?: number
}
export interface Layout {
  width: number
  height: number
  nodes: Map<string, LaidNode>
  clusters: LaidCluster[]
  edges: LaidEdge[]
}

interface GvObject {
  _gvid: number
  name: string
  bb?: string
  lp?: string
  pos?: string
  width?: string
  height?: string
  nodes?: number[]
}
interface GvEdge {
  tail: number
  head: number
  pos?: string
  lp?: string
  style?: string
}
export interface GvJson {
  bb: string
  objects?: GvObject[]
  edges?: GvEdge[]
}

function nums(s: string): number[] {
  return s.split(',').map(Number)
}

/** Graphviz spline `e,x,y x0,y0 x1,y1 ...` -> an SVG path (y flipped with height H). */
export function splinePath(pos: string, H: number): string {
  let end: [number, number] | null = null
  let start: [number, number] | null = null
  const pts: [number, number][] = []
  for (const tok of pos.trim().split(/\s+/)) {
    if (tok.startsWith('e,')) {
      const [x, y] = nums(tok.slice(2))
      end = [x, H - y]
    } else if (tok.startsWith('s,')) {
      const [x, y] = nums(tok.slice(2))
      start = [x, H - y]
    } else {
      const [x, y] = nums(tok)
      pts.push([x, H - y])
    }
  }
  if (!pts.length) return ''
  const f = (p: [number, number]) => `${p[0].toFixed(1)},${p[1].toFixed(1)}`
  let d = start ? `M${f(start)}L${f(pts[0])}` : `M${f(pts[0])}`
  for (let i = 1; i + 2 < pts.length; i += 3) {
    d += `C${f(pts[i])} ${f(pts[i + 1])} ${f(pts[i + 2])}`
  }
  if (end) d += `L${f(end)}`
  return d
}

export function parseLayout(json: GvJson, maps: DotMaps): Layout {
  const [, , bw, bh] = nums(json.bb)
  const H = bh
  const nodes = new Map<string, LaidNode>()
  const clusters: LaidCluster[] = []
  const byGvid = new Map<number, string>()
  const clusterDepth = new Map<string, number>()
  for (const o of json.objects ?? []) {
    const block = maps.blocks.get(o.name)
    if (block && o.pos) {
      const [cx, cy] = nums(o.pos)
      const bw0 = block.cols * block.cellW
      const bh0 = Math.ceil(block.members.length / block.cols) * block.cellH
      const x0 = cx - bw0 / 2
      const y0 = H - cy - bh0 / 2
      block.members.forEach((m, i) => {
        const col = i % block.cols
        const row = Math.floor(i / block.cols)
        nodes.set(m.name, { name: m.name, x: x0 + col * block.cellW + (block.cellW - m.w) / 2, y: y0 + row * block.cellH + (block.cellH - m.h) / 2, w: m.w, h: m.h })
      })
      byGvid.set(o._gvid, '\u0000' + o.name)
      continue
    }
    const name = maps.ids.get(o.name)
    if (name === undefined) continue
    byGvid.set(o._gvid, name)
    if (o.bb) {
      const [x0, y0, x1, y1] = nums(o.bb)
      const [lx, ly] = o.lp ? nums(o.lp) : [(x0 + x1) / 2, y1 - 8]
      let depth = 0
      for (const a of ancestors(name)) if (clusterDepth.has(a)) depth++
      clusterDepth.set(name, depth)
      clusters.push({ name, x: x0, y: H - y1, w: x1 - x0, h: y1 - y0, lx, ly: H - ly, depth })
    } else if (o.pos) {
      const [x, y] = nums(o.pos)
      const w = Number(o.width ?? 0) * 72
      const h = Number(o.height ?? 0) * 72
      nodes.set(name, { name, x: x - w / 2, y: H - y - h / 2, w, h })
    }
  }
  clusters.sort((a, b) => a.depth - b.depth)
  const laid: LaidEdge[] = []
  for (const e of json.edges ?? []) {
    const from = byGvid.get(e.tail)
    const to = byGvid.get(e.head)
    if (from === undefined || to === undefined || !e.pos || e.style === 'invis') continue
    const le: LaidEdge = { from, to, d: splinePath(e.pos, H) }
    if (e.lp) {
      const [lx, ly] = nums(e.lp)
      le.lx = lx
      le.ly = H - ly
    }
    laid.push(le)
  }
  return { width: bw, height: bh, nodes, clusters, edges: laid }
}
