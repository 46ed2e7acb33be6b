import { describe, expect, it } from 'vitest'
import type { GraphNode } from '@/api/types'
import { GraphStore, PAGE_SIZE } from './graphModel'
import { buildTreeRows } from './nodeTree'

function node(name: string, type: string, subnode_count = 0): GraphNode {
  return { name, type, input: {}, output: {}, subnode_count, attr: {} }
}

function store(): GraphStore {
  const s = new GraphStore()
  s.setChildren('', [node('Default', 'name_scope', 2), node('Gradients', 'name_scope', 1), node('x', 'Parameter')])
  s.setChildren('Default', [node('Default/net', 'name_scope', 1), node('Default/add', 'Add')])
  s.setChildren('Default/net', [node('Default/net/conv', 'Conv2D')])
  return s
}

describe('buildTreeRows', () => {
  it('lists the root, and the children of opened scopes right below them', () => {
    const s = store()
    expect(buildTreeRows(s, new Set()).map((r) => [r.name, r.depth, r.scope, r.open])).toEqual([
      ['Default', 0, true, false],
      ['Gradients', 0, true, false],
      ['x', 0, false, false],
    ])
    const rows = buildTreeRows(s, new Set(['Default', 'Default/net']))
    expect(rows.map((r) => `${'  '.repeat(r.depth)}${r.label}`)).toEqual(['Default', '  net', '    conv', '  add', 'Gradients', 'x'])
    expect(rows[0].open).toBe(true)
  })

  it('keeps an opened scope closed until its children are loaded', () => {
    const rows = buildTreeRows(store(), new Set(['Gradients']))
    expect(rows.find((r) => r.name === 'Gradients')?.open).toBe(false)
    expect(rows).toHaveLength(3)
  })

  it('does not show the children of an open scope under a closed parent', () => {
    const rows = buildTreeRows(store(), new Set(['Default/net']))
    expect(rows.map((r) => r.name)).toEqual(['Default', 'Gradients', 'x'])
  })

  it('ends a paged scope with the count on other pages, and stops at the row limit', () => {
    const s = new GraphStore()
    s.setChildren('', [node('S', 'aggregation_scope', 2500)])
    s.setListing('S', Array.from({ length: 2500 }, (_, i) => node(`S/op${i}`, 'ApplyMomentum')))
    const rows = buildTreeRows(s, new Set(['S']))
    expect(rows).toHaveLength(1 + PAGE_SIZE + 1)
    expect(rows[rows.length - 1]).toMatchObject({ name: 'S', more: 2500 - PAGE_SIZE, depth: 1 })
    expect(buildTreeRows(s, new Set(['S']), 10)).toHaveLength(10)
  })
})
