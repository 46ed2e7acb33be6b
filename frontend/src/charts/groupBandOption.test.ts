import { describe, expect, it } from 'vitest'
import { buildGroupBandOption, groupBySpec, groupCurvesCsv, groupLabel } from './groupBandOption'
import type { AggregateGroup } from '@/api/aggregate'

const group = (name: string, ids: string[], lower: (number | null)[]): AggregateGroup => ({
  name,
  train_ids: ids,
  steps: [1, 2, 3],
  center: lower.map((v) => (v === null ? null : v + 1)),
  lower,
  upper: lower.map((v) => (v === null ? null : v + 2)),
  count: lower.map((v) => (v === null ? 0 : ids.length)),
  exact: true,
})
const labels = { step: 'Step', value: 'Value' }

describe('group band option', () => {
  const groups = [group('lr0.1', ['a', 'b'], [-1, null, 0.5]), group('lr0.2', ['c'], [2, 3, 4])]
  const option = buildGroupBandOption(groups, { logY: false, labels }) as {
    series: { id: string; name: string; stack?: string; stackStrategy?: string; areaStyle?: unknown; data: [number, number | null][] }[]
    legend: { data: string[] }
  }
  it('draws per group an invisible lower base, the stacked upper-lower span with an area, and the center', () => {
    expect(option.series.map((s) => s.id)).toEqual(['band-lo:0', 'band:0', 'center:0', 'band-lo:1', 'band:1', 'center:1'])
    const [lo, span, center] = option.series
    expect(lo.data).toEqual([[1, -1], [2, null], [3, 0.5]])
    expect(span.data).toEqual([[1, 2], [2, null], [3, 2]]) // upper - lower; a step without values is a gap
    expect(center.data).toEqual([[1, 0], [2, null], [3, 1.5]])
    expect(lo.stack).toBe(span.stack)
    expect(span.stackStrategy).toBe('all') // a negative lower still stacks
    expect(span.areaStyle).toBeTruthy()
    expect(center.stack).toBeUndefined()
    expect(new Set(option.series.slice(0, 3).map((x) => (x as { color?: string }).color)).size).toBe(1) // legend icon = line colour
  })
  it('names the groups with their run counts in the legend (one entry per group)', () => {
    expect(option.legend.data).toEqual(['lr0.1 (2)', 'lr0.2 (1)'])
    expect(new Set(option.series.slice(0, 3).map((s) => s.name))).toEqual(new Set([groupLabel(groups[0])]))
  })
})

describe('group_by spec', () => {
  it('maps the control to the server parameter', () => {
    expect(groupBySpec('none', 'x', 'y')).toBeNull()
    expect(groupBySpec('regex', '^(lr[0-9.]+)_', '')).toBe('regex:^(lr[0-9.]+)_')
    expect(groupBySpec('regex', '', '')).toBeNull()
    expect(groupBySpec('hparam', '', ' learning_rate ')).toBe('hparam:learning_rate')
    expect(groupBySpec('rank', '', '')).toBe('rank_group')
  })
})

describe('group curves CSV', () => {
  it('has one row per group and step, nulls empty, formula-like names neutralised', () => {
    const csv = groupCurvesCsv([group('=cmd', ['a', 'b'], [1, null, 2])])
    expect(csv.split('\n')).toEqual([
      'step,group,center,lower,upper,count',
      "1,'=cmd,2,1,3,2",
      "2,'=cmd,,,,0",
      "3,'=cmd,3,2,4,2",
      '',
    ])
  })
})
