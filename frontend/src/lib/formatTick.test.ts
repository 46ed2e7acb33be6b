import { describe, expect, it } from 'vitest'
import { formatTick } from './format'

describe('formatTick', () => {
  it('keeps the zeros of an integer mantissa (120k is not 12k)', () => {
    expect(formatTick(120_000)).toBe('120k')
    expect(formatTick(200_000)).toBe('200k')
    expect(formatTick(150_000)).toBe('150k')
    expect(formatTick(10_000_000)).toBe('10M')
    expect(formatTick(100e9)).toBe('100G')
  })
  it('drops the zeros after the point and keeps three significant digits', () => {
    expect(formatTick(1_500_000)).toBe('1.5M')
    expect(formatTick(123_456)).toBe('123k')
    expect(formatTick(-2500)).toBe('-2.5k')
    expect(formatTick(0)).toBe('0')
    expect(formatTick(0.5)).toBe('0.5')
  })
})
