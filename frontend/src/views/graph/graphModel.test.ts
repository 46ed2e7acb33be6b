import { describe, expect, it } from 'vitest'
import type { GraphNode } from '@/api/types'
import { GraphStore, PAGE_SIZE, ancestors, edgeLabel, graphFileLabel, pagerName, parseLayout, shortType, splinePath, toDot } from './graphModel'
import { attrValue } from './attrText'

function node(name: string, type: string, input: Record<string, unknown> = {}, output: Record<string, unknown> = {}, subnode_count = 0): GraphNode {
  return { name, type, input, output, subnode_count, attr: {} }
}
const T = { data_type: 'DT_TENSOR[DT_FLOAT32]', edge_type: 'data', shape: [[2, 3]] }

describe('GraphStore', () => {
  it('maps a deep name to its nearest displayed ancestor', () => {
    const s = new GraphStore()
    s.setChildren('', [node('A', 'name_scope', {}, { 'B/x': T }, 2), node('B', 'name_scope', { 'A/y': T }, {}, 1)])
    expect(s.visibleOf('A/y/z')).toBe('A')
    s.setChildren('A', [node('A/y', 'Conv2D', {}, { 'B/x': T }), node('A/w', 'Parameter', {}, { 'A/y': T })])
    s.expanded.add('A')
    expect(s.visibleOf('A/y')).toBe('A/y')
    expect(s.visibleOf('B/x')).toBe('B')
    const g = s.display()
    expect(g.clusters.map((c) => c.name)).toEqual(['A'])
    expect(g.leaves.map((l) => l.name).sort()).toEqual(['A/w', 'A/y', 'B'])
    const edges = g.edges.map((e) => `${e.from}->${e.to}`).sort()
    expect(edges).toEqual(['A/w->A/y', 'A/y->B'])
    expect(g.edges.find((e) => e.to === 'B')?.label).toBe('2×3')
  })

  it('pages a big scope and routes edges to other pages to the pager node', () => {
    const s = new GraphStore()
    s.setChildren('', [node('S', 'aggregation_scope', {}, {}, 2500)])
    const kids = Array.from({ length: 2500 }, (_, i) => node(`S/op${i}`, 'ApplyMomentum'))
    s.setListing('S', kids, 'S/op1500')
    s.expanded.add('S')
    expect(s.children.get('S')?.length).toBe(PAGE_SIZE)
    expect(s.page.get('S')).toBe(1)
    expect(s.pageCount('S')).toBe(3)
    expect(s.visibleOf('S/op1500')).toBe('S/op1500')
    expect(s.visibleOf('S/op5')).toBe(pagerName('S'))
    expect(s.display().leaves.some((l) => l.kind === 'pager')).toBe(true)
  })
})

describe('helpers', () => {
  it('formats types, shapes and attributes', () => {
    expect(shortType('DT_TENSOR[DT_FLOAT32]')).toBe('float32')
    expect(shortType('DT_UNDEFINED')).toBe('')
    expect(shortType("DT_TUPLE['DT_TENSOR[DT_FLOAT32]']")).toBe('tuple')
    expect(edgeLabel([[32, 1, 32, 32]])).toBe('32×1×32×32')
    expect(edgeLabel([[], []])).toBe('2 tensors')
    expect(ancestors('a/b/c')).toEqual(['a', 'a/b'])
    expect(attrValue('dtype: DT_INT64\nint_val: 1\n')).toBe('1')
    expect(attrValue('dtype: DT_TUPLE\nvalues {\n  dtype: DT_INT64\n  int_val: 5\n}\nvalues {\n  dtype: DT_INT64\n  int_val: 5\n}\n')).toBe('[5, 5]')
  })

  it('writes DOT with clusters and converts Graphviz splines', () => {
    const s = new GraphStore()
    s.setChildren('', [node('A', 'name_scope', {}, {}, 1)])
    s.setChildren('A', [node('A/"q"', 'Const')])
    s.expanded.add('A')
    const { dot, maps } = toDot(s.display())
    expect(dot).toContain('subgraph cluster_0')
    expect([...maps.ids.values()]).toContain('A/"q"')
    expect(splinePath('e,10,0 0,100 0,50 10,50 10,10', 100)).toBe('M0.0,0.0C0.0,50.0 10.0,50.0 10.0,90.0L10.0,100.0')
  })
})

describe('wide ranks', () => {
  it('folds many siblings of one rank into a grid block', () => {
    const s = new GraphStore()
    s.setChildren('', [node('S', 'aggregation_scope', {}, {}, 40), node('U', 'UpdateState')])
    const kids = Array.from({ length: 40 }, (_, i) => node(`S/d${i}`, 'Depend', {}, { U: T }))
    s.setChildren('S', kids)
    s.expanded.add('S')
    const { dot, maps } = toDot(s.display())
    expect(maps.blocks.size).toBe(1)
    const [id, block] = [...maps.blocks.entries()][0]
    expect(block.members.length).toBe(40)
    expect(dot.match(new RegExp(`${id} -> `, 'g'))?.length).toBe(1) // 40 edges to U merged into one
    // A Graphviz answer placing the block: every member gets a cell.
    const json = { bb: '0,0,2000,1000', objects: [{ _gvid: 0, name: id, pos: '1000,500', width: '10', height: '5' }], edges: [] }
    const l = parseLayout(json, maps)
    expect(l.nodes.size).toBe(40)
    const xs = new Set([...l.nodes.values()].map((n) => Math.round(n.x)))
    expect(xs.size).toBe(block.cols)
  })
})

describe('graphFileLabel', () => {
  it('labels a summary file by its time and suffix, other files by their name', () => {
    const label = graphFileLabel('events.out.events.summary.1790007800.0.demo_MS')
    expect(label.endsWith(' · demo_MS')).toBe(true)
    expect(label).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} · /)
    expect(graphFileLabel('ms_output_optimize.pb (optimized)')).toBe('ms_output_optimize.pb (optimized)')
  })
})
