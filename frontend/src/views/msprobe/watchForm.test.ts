import { describe, expect, it } from 'vitest'
import type { MsprobeUnsupported, MsprobeWatchCondition } from '@/api/msprobeDumpsApi'
import { actualEntries, formProblem, hitKey, paramQuery, scopeQuery, unsupportedOf } from './watchForm'

// As GET msprobe/watch/conditions states them (conditions.py's parameters that the statistics can answer).
const tooLarge: MsprobeWatchCondition = {
  id: 'too_large',
  mindinsight: 'tensor_too_large',
  previous: false,
  definition: '',
  params: ['max_gt', 'min_gt', 'mean_gt'].map((name) => ({ name, default: null, range: 'finite', support: false, visible: true })),
}
const allZero: MsprobeWatchCondition = {
  id: 'all_zero',
  mindinsight: 'tensor_all_zero',
  previous: false,
  definition: '',
  params: [{ name: 'zero_percentage_ge', default: 100, range: 'in [0, 100]', support: false, visible: true }],
}
const change: MsprobeWatchCondition = {
  id: 'change_too_large',
  mindinsight: 'weight_change_too_large',
  previous: true,
  definition: '',
  params: [
    { name: 'abs_mean_update_ratio_gt', default: 0.1, range: 'in [0, inf)', support: false, visible: true },
    { name: 'epsilon', default: 1e-9, range: 'finite', support: false, visible: false },
  ],
}
const unsupported: MsprobeUnsupported[] = [
  { condition: 'too_large', param: 'abs_mean_gt', reason: 'no mean of |x|' },
  { condition: 'all_zero', param: 'zero_percentage_ge', reason: 'only 100', only: 100 },
]

describe('msprobe watch form', () => {
  it('scopes a run to the dump, the shown rank, or the shown step and rank', () => {
    const here = { step: 2, rank: 'proc5733' }
    expect(scopeQuery('dump', here)).toEqual({})
    expect(scopeQuery('rank', here)).toEqual({ rank: 'proc5733' })
    expect(scopeQuery('here', here)).toEqual({ step: 2, rank: 'proc5733' })
  })

  it('sends the typed parameters as numbers and leaves empty ones to the server', () => {
    expect(paramQuery(tooLarge, { max_gt: ' 3.5 ', min_gt: '', mean_gt: '-1e3' })).toEqual({ max_gt: 3.5, mean_gt: -1000 })
    expect(paramQuery(change, { abs_mean_update_ratio_gt: '0.2', epsilon: '' })).toEqual({ abs_mean_update_ratio_gt: 0.2 })
  })

  it('checks the form as the debugger page does, plus the one value the statistics answer', () => {
    expect(formProblem(tooLarge, { max_gt: '', min_gt: '', mean_gt: '' }, unsupported)).toEqual({ params: {}, missing: true })
    expect(formProblem(tooLarge, { max_gt: 'big' }, unsupported)?.params).toEqual({ max_gt: 'number' })
    expect(formProblem(tooLarge, { max_gt: '10' }, unsupported)).toBeNull()
    expect(formProblem(allZero, { zero_percentage_ge: '100' }, unsupported)).toBeNull()
    expect(formProblem(allZero, { zero_percentage_ge: '50' }, unsupported)?.params).toEqual({ zero_percentage_ge: 'only' })
    expect(formProblem(allZero, { zero_percentage_ge: '150' }, unsupported)?.params).toEqual({ zero_percentage_ge: 'range' })
    expect(formProblem(change, { abs_mean_update_ratio_gt: '-1', epsilon: '1e-9' }, unsupported)?.params).toEqual({ abs_mean_update_ratio_gt: 'range' })
  })

  it('names what is not computable for a condition (not the one-value parameters, which are in the form)', () => {
    expect(unsupportedOf(unsupported, 'too_large').map((u) => u.param)).toEqual(['abs_mean_gt'])
    expect(unsupportedOf(unsupported, 'all_zero')).toEqual([])
  })

  it("lists a hit's figures in the condition's parameter order", () => {
    expect(actualEntries({ actual: { mean_gt: 2, max_gt: 5 } }, tooLarge)).toEqual([['max_gt', 5], ['mean_gt', 2]])
    expect(actualEntries({ actual: { norm: 'NAN', mean: 'NAN' } }, { params: [] })).toEqual([['mean', 'NAN'], ['norm', 'NAN']])
    expect(actualEntries({ actual: { other: 1 } }, tooLarge)).toEqual([['other', 1]])
    expect(hitKey({ rank: 'rank0', step: 2, node: 'Mint.div.0.forward', io: 'output', index: '0' })).toBe('rank0|2|Mint.div.0.forward|output|0')
  })
})
