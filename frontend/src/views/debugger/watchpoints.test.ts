import { describe, expect, it } from 'vitest'
import type { Dump, WatchCondition, WatchHit } from '@/api/debuggerTypes'
import {
  conditionProblem,
  conditionRequest,
  defaultValues,
  dumpSignature,
  firstNanInf,
  hitKey,
  newIterations,
  paramProblem,
  parseRange,
} from './watchpoints'

const p = (name: string, def: number | null, range: string, support = false, visible = true) => ({ name, default: def, range, support, visible })
const cond = (id: string, params: ReturnType<typeof p>[]): WatchCondition => ({ id, mindinsight: '', mindinsight_targets: 'all', needs: 'stats', params })

// As debugger/watchpoints/conditions states them (MindInsight's condition_list.py).
const TOO_LARGE = cond('too_large', [p('abs_mean_gt', null, 'in [0, inf)'), p('max_gt', null, 'finite'), p('min_gt', null, 'finite'), p('mean_gt', null, 'finite')])
const RANGE = cond('range', [
  p('range_start_inclusive', null, 'finite', true),
  p('range_end_inclusive', null, 'finite', true),
  p('range_percentage_lt', null, 'in [0, 100]'),
  p('max_min_lt', null, 'in (0, inf)'),
])
const NOT_CHANGED = cond('not_changed', [p('rtol', 1e-5, 'in [0, inf)'), p('atol', 1e-8, 'finite', false, false)])
const NAN = cond('nan_or_inf', [])

function hit(over: Partial<WatchHit>): WatchHit {
  return { condition: 'nan_or_inf', rank: 0, graph_id: 0, iteration: 0, op_name: 'a', io: 'output', slot: 0, value: 1, node_name: 'n', ...over }
}

describe('watchpoint parameters', () => {
  it('start from MindInsight defaults, empty where there is none', () => {
    expect(defaultValues(NOT_CHANGED)).toEqual({ rtol: '0.00001', atol: '1e-8' })
    expect(defaultValues(TOO_LARGE)).toEqual({ abs_mean_gt: '', max_gt: '', min_gt: '', mean_gt: '' })
  })

  it('parse the ranges the server states', () => {
    expect(parseRange('in [0, inf)')).toEqual({ lo: 0, hi: Infinity, loOpen: false, hiOpen: true })
    expect(parseRange('in (0, inf)')).toEqual({ lo: 0, hi: Infinity, loOpen: true, hiOpen: true })
    expect(parseRange('in [0, 100]')).toEqual({ lo: 0, hi: 100, loOpen: false, hiOpen: false })
    expect(parseRange('finite')).toBeNull()
  })

  it('check a typed value against its range', () => {
    expect(paramProblem('', { range: 'in [0, 100]' })).toBeNull()
    expect(paramProblem('abc', { range: 'finite' })).toBe('number')
    expect(paramProblem('Infinity', { range: 'finite' })).toBe('number')
    expect(paramProblem('-3', { range: 'finite' })).toBeNull()
    expect(paramProblem('100', { range: 'in [0, 100]' })).toBeNull()
    expect(paramProblem('100.5', { range: 'in [0, 100]' })).toBe('range')
    expect(paramProblem('0', { range: 'in (0, inf)' })).toBe('range')
    expect(paramProblem('-0.1', { range: 'in [0, inf)' })).toBe('range')
  })

  it('need one triggering parameter where MindInsight has no default (range bounds do not count)', () => {
    expect(conditionProblem(TOO_LARGE, defaultValues(TOO_LARGE))?.missing).toBe(true)
    expect(conditionProblem(TOO_LARGE, { ...defaultValues(TOO_LARGE), max_gt: '10' })).toBeNull()
    expect(conditionProblem(RANGE, { range_start_inclusive: '-1', range_end_inclusive: '1' })?.missing).toBe(true)
    expect(conditionProblem(RANGE, { range_start_inclusive: '-1', range_end_inclusive: '1', range_percentage_lt: '50' })).toBeNull()
    expect(conditionProblem(NOT_CHANGED, defaultValues(NOT_CHANGED))).toBeNull()
    expect(conditionProblem(NOT_CHANGED, { rtol: '-1', atol: '0' })).toEqual({ params: { rtol: 'range' }, missing: false })
    expect(conditionProblem(NAN, {})).toBeNull()
  })

  it('send the set parameters as numbers', () => {
    expect(conditionRequest(NAN, {})).toEqual({ id: 'nan_or_inf' })
    expect(conditionRequest(TOO_LARGE, { abs_mean_gt: '', max_gt: ' 10 ', min_gt: '', mean_gt: '' }, 'activations')).toEqual({
      id: 'too_large',
      params: { max_gt: 10 },
      targets: 'activations',
    })
    expect(conditionRequest(NOT_CHANGED, defaultValues(NOT_CHANGED))).toEqual({ id: 'not_changed', params: { rtol: 1e-5, atol: 1e-8 } })
  })
})

describe('watchpoint hits', () => {
  it('find the first op where NaN/Inf appears: earliest iteration, then execution order', () => {
    const first = [
      hit({ condition: 'too_large', iteration: 0, execution_order: 0, op_name: 'x' }),
      hit({ iteration: 4, graph_id: 1, execution_order: 0, op_name: 'eval' }),
      hit({ iteration: 3, execution_order: 9, op_name: 'late' }),
      hit({ iteration: 3, execution_order: 5, op_name: 'conv2' }),
    ]
    expect(firstNanInf({ first })?.op_name).toBe('conv2')
    expect(firstNanInf({ first: first.slice(0, 1) })).toBeNull()
    expect(firstNanInf(null)).toBeNull()
  })

  it('key a hit by condition and tensor', () => {
    expect(hitKey(hit({ iteration: 3, io: 'input', slot: 1 }))).toBe('nan_or_inf|0|0|3|a|input|1')
  })
})

describe('dump iterations', () => {
  const dump = (iters: number[]): Dump => ({
    dump_id: './d',
    net_name: 'LeNet',
    ranks: [0],
    graphs: [
      { rank: 0, graph_id: 1, iterations: [4] },
      { rank: 0, graph_id: 0, iterations: iters },
    ],
  })
  it('say when iterations appear', () => {
    expect(dumpSignature(dump([0, 2]))).toBe('0/0:0,2 0/1:4')
    expect(dumpSignature(dump([0, 2]))).not.toBe(dumpSignature(dump([0, 2, 3])))
    expect(dumpSignature(null)).toBe('')
    expect(newIterations(dump([0, 2]), dump([0, 2, 3, 5]), 0, 0)).toEqual([3, 5])
    expect(newIterations(null, dump([0]), 0, 0)).toEqual([0])
    expect(newIterations(dump([0]), dump([0]), 0, 7)).toEqual([])
  })
})
