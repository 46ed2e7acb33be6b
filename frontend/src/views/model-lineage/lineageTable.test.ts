import { describe, expect, it } from 'vitest'
import { displayValue, passesBrush, sortRows, toCsv, type Axis, type Row } from './lineageTable'
import { defaultColumnKeys, modelColumns, modelRows } from './modelColumns'
import { dataLineage, flattenPipeline, paramText } from '../data-lineage/datasetOps'

const row = (id: string, index: number, values: Record<string, unknown>, tag = 0): Row => ({ id, index, tag, remark: '', values })

describe('sortRows', () => {
  const rows = [row('a', 0, { lr: 0.1 }), row('b', 1, {}), row('c', 2, { lr: 0.01 }), row('d', 3, { lr: 0.1 })]
  it('sorts numbers, keeps ties in default order and missing values last', () => {
    expect(sortRows(rows, 'lr', 'asc').map((r) => r.id)).toEqual(['c', 'a', 'd', 'b'])
    expect(sortRows(rows, 'lr', 'desc').map((r) => r.id)).toEqual(['a', 'd', 'c', 'b'])
    expect(sortRows(rows, null, 'asc').map((r) => r.id)).toEqual(['a', 'b', 'c', 'd'])
  })
  it('sorts strings naturally and by tag', () => {
    const r = [row('./run10', 0, {}), row('./run9', 1, {}, 3), row('./run1', 2, {}, 1)]
    expect(sortRows(r, 'summary_dir', 'asc').map((x) => x.id)).toEqual(['./run1', './run9', './run10'])
    expect(sortRows(r, 'tag', 'desc').map((x) => x.id)).toEqual(['./run9', './run1', './run10'])
  })
})

describe('passesBrush', () => {
  const axes: Axis[] = [
    { key: 'bs', type: 'value' },
    { key: 'opt', type: 'category', categories: ['—', 'Adam', 'SGD'] },
  ]
  it('applies every brushed axis, like ECharts', () => {
    const r = row('a', 0, { bs: 32, opt: 'SGD' })
    expect(passesBrush(r, axes, {})).toBe(true)
    expect(passesBrush(r, axes, { bs: [[30, 40]] })).toBe(true)
    expect(passesBrush(r, axes, { bs: [[30, 40]], opt: [[0.7, 1.3]] })).toBe(false)
    expect(passesBrush(r, axes, { opt: [[1.7, 2.2]] })).toBe(true)
    expect(passesBrush(row('b', 1, { opt: 'SGD' }), axes, { bs: [[0, 100]] })).toBe(false)
    expect(passesBrush(row('b', 1, {}), axes, { opt: [[-0.2, 0.2]] })).toBe(true)
  })
})

describe('model rows and columns', () => {
  const objects = [
    { summary_dir: './a', added_info: { tag: 2, remark: 'x' }, model_lineage: { batch_size: 32, device_num: 1, metric: { acc: 0.5 }, user_defined: { note: 'n' } } },
    { summary_dir: './b', model_lineage: { batch_size: 64, device_num: 1, metric: {}, user_defined: {} } },
  ]
  it('flattens metrics and user-defined values; defaults skip constant columns', () => {
    const rows = modelRows(objects)
    expect(rows[0]).toMatchObject({ id: './a', tag: 2, remark: 'x', values: { 'metric/acc': 0.5, 'user_defined/note': 'n' } })
    const cols = modelColumns(rows)
    expect(cols.find((c) => c.key === 'batch_size')?.kind).toBe('number')
    const keys = defaultColumnKeys(cols, rows)
    expect(keys).toContain('batch_size')
    expect(keys).toContain('metric/acc')
    expect(keys).not.toContain('device_num')
  })
  it('exports CSV with quoting', () => {
    expect(toCsv([row('./a', 0, { s: 'a,b' })], [{ key: 'summary_dir', label: 'summary_dir' }, { key: 's', label: 's' }])).toBe(
      'summary_dir,s\n./a,"a,b"\n',
    )
  })
})

describe('data lineage', () => {
  const graph = (bs: number, shuffle: boolean) => {
    const source = { op_type: 'GeneratorDataset', children: [], num_parallel_workers: 1 }
    const map = { op_type: 'Map', children: [source], input_columns: ['"image"'], operations: [{ tensor_op_name: 'TypeCast', tensor_op_params: '{"data_type": "int32"}' }] }
    const mid = shuffle ? { op_type: 'Shuffle', buffer_size: 64, children: [map] } : map
    return { op_type: 'Batch', batch_size: bs, drop_remainder: true, children: [mid] }
  }
  it('flattens from the source and aligns slots', () => {
    expect(flattenPipeline(graph(8, true)).map((o) => o.slot)).toEqual(['GeneratorDataset#1', 'Map#1', 'Shuffle#1', 'Batch#1'])
    expect(paramText([{ tensor_op_name: 'TypeCast', tensor_op_params: '{"data_type": "int32"}' }])).toBe('[TypeCast(data_type=int32)]')
    const d = dataLineage(
      [
        { summary_dir: './a', dataset_graph: graph(8, true) },
        { summary_dir: './b', dataset_graph: graph(16, false) },
      ],
      (slot) => slot,
    )
    expect(d.columns.map((c) => c.key)).toEqual(['dataset_mark', 'pipeline', 'op:GeneratorDataset#1', 'op:Map#1', 'op:Shuffle#1', 'op:Batch#1'])
    expect(d.rows[0].values['op:Batch#1']).toBe('batch_size=8')
    expect(d.rows[1].values['op:Shuffle#1']).toBeNull()
    expect(d.rows[1].values['op:Map#1']).toBe('Map')
    expect(d.rows[1].values.pipeline).toBe('GeneratorDataset → Map → Batch')
  })
})

describe('displayValue', () => {
  it('writes a float32 metric with the fewest digits that read back to it', () => {
    expect(displayValue(Math.fround(0.874))).toBe('0.874')
    expect(displayValue(Math.fround(0.812))).toBe('0.812')
    expect(displayValue(Math.fround(0.903))).toBe('0.903')
    expect(displayValue(Math.fround(1e-7))).toBe('1e-7')
  })
  it('keeps up to 8 significant digits of a double, and integers and text as they are', () => {
    expect(displayValue(0.1 + 0.2)).toBe('0.3')
    expect(displayValue(1 / 3)).toBe('0.33333333')
    expect(displayValue(128)).toBe('128')
    expect(displayValue('adam')).toBe('adam')
    expect(displayValue(null)).toBe('')
  })
})
