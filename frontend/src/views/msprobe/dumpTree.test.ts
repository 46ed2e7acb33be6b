import { describe, expect, it } from 'vitest'
import { visibleRows, type TreeNode } from './dumpTree'

// msprobe records a Cell when its forward returns: after the calls inside it.
const nodes: TreeNode[] = [
  { name: 'Mint.sum.0.forward', parent: 'Cell.norm.forward.0', index: 0, bad: false },
  { name: 'Mint.div.0.forward', parent: 'Cell.norm.forward.0', index: 1, bad: true },
  { name: 'Cell.norm.forward.0', parent: 'Cell.net.forward.0', index: 2, bad: true },
  { name: 'Primitive.conv2d.0.forward', parent: 'Cell.net.forward.0', index: 3, bad: false },
  { name: 'Cell.net.forward.0', parent: null, index: 4, bad: false },
  { name: 'Cell.net.parameters_grad.0', parent: null, index: 5, bad: false },
  { name: 'Tensor.flatten.0.forward', parent: 'Cell.net.forward.0', index: null, bad: false }, // only in construct.json
]

describe('visibleRows', () => {
  it('puts a Cell before its calls, children in execution order, construct-only nodes last', () => {
    const rows = visibleRows(nodes, new Set())
    expect(rows.map((r) => [r.name, r.depth])).toEqual([
      ['Cell.net.forward.0', 0],
      ['Cell.norm.forward.0', 1],
      ['Mint.sum.0.forward', 2],
      ['Mint.div.0.forward', 2],
      ['Primitive.conv2d.0.forward', 1],
      ['Tensor.flatten.0.forward', 1],
      ['Cell.net.parameters_grad.0', 0],
    ])
    expect(rows.find((r) => r.name === 'Cell.norm.forward.0')?.hasChildren).toBe(true)
  })
  it('hides a collapsed subtree, and a search shows the matches with their ancestors', () => {
    expect(visibleRows(nodes, new Set(['Cell.norm.forward.0'])).map((r) => r.name)).not.toContain('Mint.div.0.forward')
    expect(visibleRows(nodes, new Set(['Cell.norm.forward.0']), 'DIV').map((r) => r.name)).toEqual([
      'Cell.net.forward.0',
      'Cell.norm.forward.0',
      'Mint.div.0.forward',
    ])
  })
  it('survives a parent cycle in a damaged construct.json', () => {
    const loop: TreeNode[] = [
      { name: 'a', parent: 'b', index: 0, bad: false },
      { name: 'b', parent: 'a', index: 1, bad: false },
      { name: 'c', parent: null, index: 2, bad: false },
    ]
    expect(visibleRows(loop, new Set()).map((r) => r.name)).toEqual(['c'])
  })
})
