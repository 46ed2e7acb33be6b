import { describe, expect, it } from 'vitest'
import type { DumpGraphNode, DumpTensor, WatchHit } from '@/api/debuggerTypes'
import { markContext, nodeMark, parseTensorKey, scopeHolds, tensorKey } from './debuggerGraph'

const LENET = 'Default/network-WithLossCell/_backbone-LeNet5'

function tensor(over: Partial<DumpTensor>): DumpTensor {
  return {
    op_name: 'op', op_type: 'Conv2D', io: 'output', slot: 0, dtype: 'Float32', shape: [1], count: 1, min: 0, max: 0, mean: 0,
    std: 0, nan_count: 0, pos_inf_count: 0, neg_inf_count: 0, zero_count: 0, node_name: null, ...over,
  }
}
function node(name: string, type: string, tensors?: DumpTensor[]): DumpGraphNode {
  return { name, type, ...(tensors ? { tensors } : {}) }
}
function hit(over: Partial<WatchHit>): WatchHit {
  return { condition: 'nan_or_inf', rank: 0, graph_id: 0, iteration: 3, op_name: 'op', io: 'output', slot: 0, value: 1, node_name: null, ...over }
}

describe('debugger graph marks', () => {
  it('match scopes, aggregation scopes included, to the full names of nodes', () => {
    expect(scopeHolds(`${LENET}/conv2-Conv2d`, `${LENET}/conv2-Conv2d/Conv2D-op5`)).toBe(true)
    expect(scopeHolds(`${LENET}/conv2-Conv2d`, `${LENET}/conv2-Conv2dX/Conv2D-op5`)).toBe(false)
    expect(scopeHolds(`${LENET}/Load[5]_0`, `${LENET}/Load-op3`)).toBe(true)
    expect(scopeHolds(`${LENET}/Load[5]_0`, `${LENET}/fc1-Dense/Load-op3`)).toBe(false)
    expect(scopeHolds(`${LENET}/Load[5]_0`, `${LENET}/MatMul-op3`)).toBe(false)
  })

  it('mark the first NaN/Inf op and the scopes holding it, then bad and dumped nodes', () => {
    const conv2 = `${LENET}/conv2-Conv2d/Conv2D-op5`
    const relu = `${LENET}/relu-ReLU/ReLU-op1`
    const hits = [
      hit({ op_name: 'conv2_file', node_name: conv2 }),
      hit({ op_name: 'relu_file', node_name: relu }),
      hit({ op_name: 'other_iteration', node_name: `${LENET}/fc1-Dense/MatMul-op0`, iteration: 2 }),
    ]
    const ctx = markContext(hits, 0, 0, 3, [conv2])
    expect(nodeMark(conv2, node(conv2, 'Conv2D'), ctx)).toBe('first')
    expect(nodeMark(LENET, node(LENET, 'name_scope'), ctx)).toBe('first')
    expect(nodeMark('Default', node('Default', 'name_scope'), ctx)).toBe('first')
    expect(nodeMark(`${LENET}/relu-ReLU`, node(`${LENET}/relu-ReLU`, 'name_scope'), ctx)).toBe('bad')
    expect(nodeMark(relu, node(relu, 'ReLU', [tensor({ op_name: 'relu_file' })]), ctx)).toBe('bad')
    // A tensor with NaN marks its node even without a check.
    const empty = markContext([], 0, 0, 3, [])
    expect(nodeMark(relu, node(relu, 'ReLU', [tensor({ pos_inf_count: 2 })]), empty)).toBe('bad')
    // Hits of another iteration do not count here.
    expect(nodeMark(`${LENET}/fc1-Dense`, node(`${LENET}/fc1-Dense`, 'name_scope'), ctx)).toBeUndefined()
    expect(nodeMark(`${LENET}/fc1-Dense/MatMul-op0`, node('m', 'MatMul', [tensor({ op_name: 'other_iteration' })]), ctx)).toBe('dumped')
    expect(nodeMark('x', node('x', 'Const'), ctx)).toBeUndefined()
    expect(nodeMark('x', undefined, ctx)).toBeUndefined()
  })
  it('name a tensor in the URL and read the name back', () => {
    const key = tensorKey({ io: 'output', slot: 0, op_name: 'Default_net_conv1-Conv2d_Conv2D-op0' })
    expect(key).toBe('output:0:Default_net_conv1-Conv2d_Conv2D-op0')
    expect(parseTensorKey(key)).toEqual({ io: 'output', slot: 0, op_name: 'Default_net_conv1-Conv2d_Conv2D-op0' })
    expect(parseTensorKey('output:x:y')).toBeNull()
    expect(parseTensorKey('')).toBeNull()
  })
})
