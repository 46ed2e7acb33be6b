import { beforeAll, describe, expect, it, vi } from 'vitest'

// columns.ts words headers through the i18n module, which reads the browser's language: English here
let cellValue: typeof import('./columns').cellValue
let columnHeader: typeof import('./columns').columnHeader
let toUs: typeof import('./columns').toUs
let unitText: typeof import('./columns').unitText
beforeAll(async () => {
  vi.stubGlobal('navigator', { language: 'en-US' })
  ;({ cellValue, columnHeader, toUs, unitText } = await import('./columns'))
})

describe('profiler columns', () => {
  it('converts times to µs by the declared unit, never by the name', () => {
    expect(toUs(1.959, 'ms')).toBeCloseTo(1959)
    expect(toUs(1959.079, 'us')).toBe(1959.079)
    expect(toUs(3, 'count')).toBeNull()
    expect(toUs(22.077, 'percent')).toBeNull()
  })
  it('shows each unit once, in the header', () => {
    expect(columnHeader({ name: 'total_time_us', unit: 'us' })).toBe('Total time (µs)')
    expect(columnHeader({ name: 'execution_time', unit: 'ms' })).toBe('Execution time (ms)')
    expect(columnHeader({ name: 'percent', unit: 'percent' })).toBe('Share (%)')
    expect(columnHeader({ name: 'execution_frequency', unit: 'count' })).toBe('Executions')
    expect(columnHeader({ name: 'op_type', unit: null })).toBe('Operator type')
    expect(columnHeader({ name: 'start_time_us', unit: 'us', timestamp: true })).toBe('Start, from the profile’s start (µs)')
    expect(unitText('fraction')).toBe('%')
  })
  it('writes cells as plain numbers in that unit: fractions as percents, timestamps from the origin', () => {
    expect(cellValue(0.52211, { name: 'total_time_proportion', unit: 'fraction' })).toBe('52.211')
    expect(cellValue(1736408883704643.2, { name: 'start_time_us', unit: 'us', timestamp: true }, 1736408883704643.2)).toBe('0')
    expect(cellValue(2563.2112187499997, { name: 'device_total_us', unit: 'us' })).toBe('2563.211')
    expect(cellValue(4097000, { name: 'count', unit: 'count' })).toBe('4097000')
    expect(cellValue(null, { name: 'x', unit: null })).toBe('–')
  })
})
