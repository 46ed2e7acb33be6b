import { describe, expect, it } from 'vitest'
import { bytesAxis, clockFormatter, niceBinaryStep, spacedTickFormatter, trimNumber, usAxisFormatter } from './axisFormat'

describe('usAxisFormatter', () => {
  it('labels every tick in the unit of the largest, without trailing zeros, and 0 bare', () => {
    const f = usAxisFormatter(17_675)
    expect([0, 3000, 6000, 15_000].map(f)).toEqual(['0', '3 ms', '6 ms', '15 ms'])
    expect(usAxisFormatter(928_230)(200_000)).toBe('200 ms')
    expect(usAxisFormatter(1_200_000)(500_000)).toBe('0.5 s')
    expect(usAxisFormatter(800)(250)).toBe('250 µs')
    expect(usAxisFormatter(2500)(1250)).toBe('1.25 ms')
  })
  it('keeps the ticks of a narrow zoomed window apart', () => {
    const f = usAxisFormatter(400_000, 2) // a 2 µs window at 300 ms
    expect(f(300_012.2)).toBe('300.0122 ms')
    expect(f(300_012.4)).toBe('300.0124 ms')
  })
})

describe('niceBinaryStep / bytesAxis', () => {
  it('steps are powers of two bytes: 128 KiB for a 586 KiB peak, never 97.7 KiB', () => {
    expect(niceBinaryStep(586 * 1024)).toBe(128 * 1024)
    expect(niceBinaryStep(2 ** 30)).toBe(256 * 2 ** 20)
    for (const span of [700, 5000, 123_456, 9.9e6, 3.3e9]) {
      const step = niceBinaryStep(span)
      expect(Number.isInteger(Math.log2(step))).toBe(true)
      expect(span / step).toBeLessThanOrEqual(5)
      expect(span / step).toBeGreaterThan(1.25)
    }
  })
  it('labels ticks in one unit with the decimals the step needs', () => {
    const kib = bytesAxis(586 * 1024)
    expect(kib.interval).toBe(128 * 1024)
    expect(kib.max).toBe(640 * 1024)
    expect([0, 1, 2, 5].map((i) => kib.formatter(i * kib.interval))).toEqual(['0', '128 KiB', '256 KiB', '640 KiB'])
    const gib = bytesAxis(2 ** 30)
    expect([1, 2, 3, 4].map((i) => gib.formatter(i * gib.interval))).toEqual(['0.25 GiB', '0.5 GiB', '0.75 GiB', '1 GiB'])
  })
})

describe('clockFormatter', () => {
  const at = new Date(2026, 0, 1, 8, 38, 40, 560).getTime()
  it('reads as a clock, decimals of the second only as the span needs', () => {
    expect(clockFormatter(400)(at)).toBe('08:38:40.56')
    expect(clockFormatter(50)(at)).toBe('08:38:40.56')
    expect(clockFormatter(3000)(at)).toBe('08:38:40.5')
    expect(clockFormatter(30_000)(at)).toBe('08:38:40')
    expect(clockFormatter(3_600_000)(at)).toBe('08:38')
    expect(clockFormatter(3 * 86_400_000)(at)).toBe('01-01 08:38')
    expect(clockFormatter(400)(new Date(2026, 0, 1, 8, 38, 40, 0).getTime())).toBe('08:38:40')
  })
})

describe('trimNumber', () => {
  it('drops trailing zeros only after the point', () => {
    expect(trimNumber(6)).toBe('6')
    expect(trimNumber(100)).toBe('100')
    expect(trimNumber(1.5)).toBe('1.5')
    expect(trimNumber(0.1234)).toBe('0.123')
  })
})

describe('spacedTickFormatter (issue 34)', () => {
  it('gives ticks close together enough digits to differ', () => {
    const g = spacedTickFormatter(0.01e9)
    const ticks = [30.50e9, 30.51e9, 30.52e9, 30.53e9, 30.54e9].map(g)
    expect(new Set(ticks).size).toBe(5)
    expect(ticks[1]).toBe('30.51G')
    const k = spacedTickFormatter(1)
    expect([4410, 4411, 4412].map(k)).toEqual(['4.41k', '4.411k', '4.412k'])
    const small = spacedTickFormatter(1e-6)
    expect(new Set([2e-4, 2.01e-4, 2.02e-4].map(small)).size).toBe(3)
  })
  it('keeps the short form where three digits are enough', () => {
    const f = spacedTickFormatter(1e8)
    expect(f(3e9)).toBe('3G')
    expect(f(0)).toBe('0')
    expect(spacedTickFormatter(0)(1234)).toBe('1.23k')
    expect(spacedTickFormatter(0.1)(0.5)).toBe('0.5')
  })
})
