import { describe, expect, it } from 'vitest'
import type { TextCompareResponse } from '@/api/types'
import { countKinds, diffRows, filterRows, markCell } from './configDiff'

const A = './run_a'
const B = './run_b'
const C = './run_c'

// The Megatron fixture's five differences (EXPECTED.json groups.megatron.args_diff) plus one equal key.
const megatron: TextCompareResponse = {
  train_ids: [A, B],
  differing: 5,
  keys: [
    { key: 'adam_beta1', values: { [A]: '0.9', [B]: '0.9' }, differs: false },
    { key: 'jit_compile', values: { [A]: 'False', [B]: null }, differs: true },
    { key: 'lr', values: { [A]: '0.0003', [B]: '0.00015' }, differs: true },
    { key: 'micro_batch_size', values: { [A]: '1', [B]: '2' }, differs: true },
    { key: 'seed', values: { [A]: '1234', [B]: '42' }, differs: true },
    { key: 'use_fused_swiglu', values: { [A]: null, [B]: 'True' }, differs: true },
  ],
}

describe('markCell', () => {
  it('compares with the baseline', () => {
    expect(markCell('1', '1', true)).toBe('base')
    expect(markCell(null, null, true)).toBe('absent')
    expect(markCell('1', '1', false)).toBe('same')
    expect(markCell('1', '2', false)).toBe('changed')
    expect(markCell(null, '2', false)).toBe('added')
    expect(markCell('1', null, false)).toBe('removed')
    expect(markCell(null, null, false)).toBe('absent')
  })
})

describe('diffRows', () => {
  it('shows only what differs, added and removed keys marked', () => {
    const rows = diffRows(megatron)
    expect(rows.map((r) => [r.key, r.kind])).toEqual([
      ['jit_compile', 'removed'],
      ['lr', 'changed'],
      ['micro_batch_size', 'changed'],
      ['seed', 'changed'],
      ['use_fused_swiglu', 'added'],
    ])
    expect(rows[0].cells.map((c) => c.mark)).toEqual(['base', 'removed'])
    expect(rows[4].cells.map((c) => c.mark)).toEqual(['absent', 'added'])
    expect(countKinds(rows)).toEqual({ same: 0, changed: 3, added: 1, removed: 1, mixed: 0 })
    expect(diffRows(megatron, false)).toHaveLength(6)
    expect(diffRows(megatron, false)[0].kind).toBe('same')
  })

  it('marks each of several runs against the first, with parse errors and cut values', () => {
    const res: TextCompareResponse = {
      train_ids: [A, B, C],
      differing: 2,
      keys: [
        { key: 'model.hidden', values: { [A]: '4096', [B]: '4096', [C]: '8192' }, differs: true },
        { key: 'x', values: { [A]: '1', [B]: null, [C]: '2' }, differs: true, truncated: [C] },
        { key: 'broken', values: { [A]: "{'a': ", [B]: "{'a': 1}", [C]: null }, differs: true, errors: { [A]: 'not a Python literal' } },
      ],
    }
    const rows = diffRows(res)
    expect(rows[0].cells.map((c) => c.mark)).toEqual(['base', 'same', 'changed'])
    expect(rows[0].kind).toBe('changed')
    expect(rows[1].cells.map((c) => c.mark)).toEqual(['base', 'removed', 'changed'])
    expect(rows[1].kind).toBe('mixed')
    expect(rows[1].cells[2].truncated).toBe(true)
    expect(rows[2].cells[0].error).toBe('not a Python literal')
  })

  it('filters by key or value', () => {
    const rows = diffRows(megatron)
    expect(filterRows(rows, 'SEED').map((r) => r.key)).toEqual(['seed'])
    expect(filterRows(rows, '0.00015').map((r) => r.key)).toEqual(['lr'])
    expect(filterRows(rows, ' ')).toHaveLength(5)
  })
})
