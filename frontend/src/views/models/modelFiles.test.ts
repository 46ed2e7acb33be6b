import { describe, expect, it } from 'vitest'
import type { ModelFile, ModelParameter } from '@/api/debuggerTypes'
import { byFolder, comparable, companionCheckpoint, formatFacts, nextSort, nodeLine, nonFinite, notRead, sortRows, tabsFor, withStatistics } from './modelFiles'

const file = (model_id: string, kind: ModelFile['kind']): ModelFile => ({ model_id, kind })
const FILES = [
  file('./mindir/lenet.mindir', 'mindir'),
  file('./mindir/lenet_train.ckpt', 'checkpoint'),
  file('./mindir/lenet.ckpt', 'checkpoint'),
  file('./other/lenet.ckpt', 'checkpoint'),
  file('./models/net.mindir', 'mindir'),
  file('./models/net_trained.ckpt', 'checkpoint'),
  file('./ir/graph.ir', 'ir'),
]

function param(name: string, over: Partial<ModelParameter> = {}): ModelParameter {
  return { name, shape: [1], dtype: 'float32', min: 0, max: 0, mean: 0, std: 0, nan_count: 0, ...over }
}

describe('model files', () => {
  it('offer the views of each kind', () => {
    expect(tabsFor('mindir')[0]).toBe('graph')
    expect(tabsFor('checkpoint')).toEqual(['parameters', 'compare'])
    expect(tabsFor('dot')[0]).toBe('render')
    expect(tabsFor('safetensors')).toEqual(['parameters', 'compare'])
    expect(tabsFor('safetensors-index')).toEqual(['parameters', 'compare'])
    expect(tabsFor('safetensors-ranks')).toEqual(['parameters', 'compare'])
  })

  it('compare a safetensors file with checkpoints and MindIR files, not with IR text', () => {
    const withSt = [...FILES, file('./st/lenet.safetensors', 'safetensors'), file('./hf/model.safetensors.index.json', 'safetensors-index')]
    const ids = comparable('./st/lenet.safetensors', withSt).map((f) => f.model_id)
    expect(ids).toContain('./mindir/lenet.ckpt')
    expect(ids).toContain('./hf/model.safetensors.index.json')
    expect(ids).not.toContain('./ir/graph.ir')
    expect(ids).not.toContain('./st/lenet.safetensors')
  })

  it('show an ONNX or MindSpore Lite model as a graph with its own weights, comparable with checkpoints', () => {
    expect(tabsFor('onnx')).toEqual(['graph', 'nodes', 'parameters', 'compare'])
    expect(tabsFor('ms')).toEqual(['graph', 'nodes', 'parameters', 'compare'])
    const withOnnx = [...FILES, file('./mf/lenet.onnx', 'onnx'), file('./mf/lenet.ms', 'ms')]
    expect(comparable('./mf/lenet.onnx', withOnnx).map((f) => f.model_id)).toEqual([
      './mindir/lenet.mindir',
      './mindir/lenet_train.ckpt',
      './mindir/lenet.ckpt',
      './other/lenet.ckpt',
      './models/net.mindir',
      './models/net_trained.ckpt',
      './mf/lenet.ms',
    ])
  })

  it('say the format facts of ONNX and .ms models and what was not read', () => {
    const onnx = formatFacts('onnx', { ir_version: 4, opset_import: { 'ai.onnx': 11 }, producer_name: 'MindSpore', producer_version: '1.0' })
    expect(onnx).toEqual({ key: 'models.onnxFacts', values: { ir: 4, opsets: 'ai.onnx 11', producer: 'MindSpore 1.0' } })
    const ms = formatFacts('ms', { version: 'MindSpore Lite 2.0.0', fmk_name: 'ONNX', tensor_count: 19, const_tensor_count: 9 })
    expect(ms?.values).toEqual({ version: 'MindSpore Lite 2.0.0', fmk: 'ONNX', tensors: 19, consts: 9 })
    expect(formatFacts('mindir', { ir_version: 1 })).toBeNull()
    expect(notRead({ not_read: ['2 sparse initializers'] })).toEqual(['2 sparse initializers'])
    expect(notRead(undefined)).toEqual([])
  })

  it('find the checkpoint beside a MindIR: same stem, then a stem prefix, then any', () => {
    expect(companionCheckpoint('./mindir/lenet.mindir', FILES)).toBe('./mindir/lenet.ckpt')
    expect(companionCheckpoint('./models/net.mindir', FILES)).toBe('./models/net_trained.ckpt')
    expect(companionCheckpoint('./mindir/other.mindir', FILES)).toBe('./mindir/lenet_train.ckpt')
    expect(companionCheckpoint('./ir/x.mindir', FILES)).toBeNull()
  })

  it('compare with the other checkpoints and MindIR files', () => {
    expect(comparable('./mindir/lenet.ckpt', FILES).map((f) => f.model_id)).toEqual([
      './mindir/lenet.mindir',
      './mindir/lenet_train.ckpt',
      './other/lenet.ckpt',
      './models/net.mindir',
      './models/net_trained.ckpt',
    ])
  })

  it('group files by folder in path order', () => {
    expect(byFolder(FILES).map((g) => [g.folder, g.files.length])).toEqual([
      ['./ir', 1],
      ['./mindir', 3],
      ['./models', 2],
      ['./other', 1],
    ])
    expect(byFolder(FILES)[1].files.map((f) => f.model_id)).toEqual(['./mindir/lenet.ckpt', './mindir/lenet.mindir', './mindir/lenet_train.ckpt'])
  })
})

describe('parameter tables', () => {
  const rows = [
    { name: 'fc10.weight', max: 3, shape: [10, 84], nan_count: 0 },
    { name: 'fc2.weight', max: null, shape: [84, 120], nan_count: 2 },
    { name: 'conv1.weight', max: -1, shape: [6, 1, 5, 5], nan_count: 0 },
    { name: 'fc1.bias', max: 3, shape: [120], nan_count: 0 },
  ]
  it('sort by any column, missing values last, ties in file order', () => {
    expect(sortRows(rows, 'max', 'asc').map((r) => r.name)).toEqual(['conv1.weight', 'fc10.weight', 'fc1.bias', 'fc2.weight'])
    expect(sortRows(rows, 'max', 'desc').map((r) => r.name)).toEqual(['fc10.weight', 'fc1.bias', 'conv1.weight', 'fc2.weight'])
    expect(sortRows(rows, 'name', 'asc').map((r) => r.name)).toEqual(['conv1.weight', 'fc1.bias', 'fc2.weight', 'fc10.weight'])
    // shapes by their number of elements: 120, 150, 840, 10080
    expect(sortRows(rows, 'shape', 'asc').map((r) => r.name)).toEqual(['fc1.bias', 'conv1.weight', 'fc10.weight', 'fc2.weight'])
  })

  it('cycle a header through ascending, descending and none', () => {
    expect(nextSort(null, 'max')).toEqual({ key: 'max', dir: 'asc' })
    expect(nextSort({ key: 'max', dir: 'asc' }, 'max')).toEqual({ key: 'max', dir: 'desc' })
    expect(nextSort({ key: 'max', dir: 'desc' }, 'max')).toBeNull()
    expect(nextSort({ key: 'max', dir: 'desc' }, 'min')).toEqual({ key: 'min', dir: 'asc' })
  })

  it('flag NaN and Inf', () => {
    expect(nonFinite(param('a'))).toBe(false)
    expect(nonFinite(param('a', { nan_count: 1 }))).toBe(true)
    expect(nonFinite(param('a', { neg_inf_count: 3 }))).toBe(true)
  })

  it('join a MindIR parameter list with the statistics of a checkpoint by name', () => {
    const joined = withStatistics(
      [
        { name: 'conv1.weight', shape: [6, 1, 5, 5], dtype: 'float32' },
        { name: 'fc3.bias', shape: [10], dtype: 'float32' },
      ],
      [param('conv1.weight', { max: 0.97, shape: [6, 1, 5, 5] }), param('moments.conv1.weight')],
    )
    expect(joined.map((r) => [r.name, r.max, r.missing])).toEqual([
      ['conv1.weight', 0.97, false],
      ['fc3.bias', null, true],
    ])
  })
})

describe('IR text', () => {
  const lines = [
    'subgraph @kernel_graph0() {',
    '  %0(equiv_16_CNode_645) = Load(%para8_conv1.weight, UMonad[U]) cnode_attrs: {}',
    '      : (<Ref[Tensor[Float32]]>) -> (<Tensor[Float32]>)',
    '      # Fullname with scope: (Default/net/Load-op0)',
    '  %1(equiv_15_output) = Conv2D(%para9_inputs0, %0)',
    '      : (<Tensor[Float32]>, <Tensor[Float32]>) -> (<Tensor[Float32]>)',
    '      : (Tensor, Tensor) -> (Tensor)',
    '      # Fullname with scope: (Default/net/conv1/Conv2D-op0)',
    '  Return(%1)',
  ]
  it('find the statement of a node from its scope comment', () => {
    expect(nodeLine(lines, 'Default/net/Load-op0', 'Load-op0')).toBe(1)
    expect(nodeLine(lines, 'Default/net/conv1/Conv2D-op0', 'x')).toBe(4)
    expect(nodeLine(lines, '', '%para9_inputs0')).toBe(4)
    expect(nodeLine(lines, 'Default/nope', 'nope')).toBe(-1)
  })
})
