// Axis tick labels shared by the charts: one unit per axis, no trailing zeros ("6 ms", not "6.000 ms"), a bare
// "0"; nice steps in binary units for bytes (64 KiB, 256 MiB, never 97.7 KiB); clock labels for absolute time that
// read as a clock ("08:38:40.56", not ECharts' default "08:38:40 560").

import { formatTick } from './format'

/** Up to `digits` decimals, trailing zeros dropped: 6 -> "6", 1.5 -> "1.5", 0.125 -> "0.125". */
export function trimNumber(v: number, digits = 3): string {
  const s = v.toFixed(digits)
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s
}

const TIME_UNITS: [number, string][] = [
  [1e6, 's'],
  [1e3, 'ms'],
  [1, 'µs'],
]

/** Ticks of a µs axis: the unit of its largest value for every label ("0", "200 ms", ..., "1000 ms"). With the
 * visible `spanUs` (a zoomed window), as many decimals as ticks about a tenth of it apart need (up to 6). */
export function usAxisFormatter(maxAbsUs: number, spanUs?: number): (v: number) => string {
  const m = Math.abs(maxAbsUs)
  const [scale, unit] = TIME_UNITS.find(([s]) => m >= s) ?? TIME_UNITS[TIME_UNITS.length - 1]
  const digits = spanUs && spanUs > 0 ? Math.min(6, Math.max(3, -Math.floor(Math.log10(spanUs / scale / 10)))) : 3
  return (v: number) => (v === 0 ? '0' : `${trimNumber(v / scale, digits)} ${unit}`)
}

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB']

/** The smallest power-of-two multiple of a binary unit (1, 2, 4 ... 512 B / KiB / MiB ...) that cuts `span` into at
 * most `ticks` steps. */
export function niceBinaryStep(span: number, ticks = 5): number {
  if (!(span > 0)) return 1
  const raw = span / ticks
  return 2 ** Math.max(0, Math.ceil(Math.log2(raw)))
}

/** A bytes axis from 0 to `maxBytes`: nice binary `interval`, `max` on a tick, labels in one unit (the unit of the
 * largest tick) with as many decimals as the step needs ("0", "0.25 GiB", "0.5 GiB", ...). */
export function bytesAxis(maxBytes: number, ticks = 5): { interval: number; max: number; formatter: (v: number) => string } {
  const interval = niceBinaryStep(maxBytes, ticks)
  const max = Math.max(interval, Math.ceil(maxBytes / interval) * interval)
  let u = 0
  while (u < BYTE_UNITS.length - 1 && max >= 1024 ** (u + 1)) u++
  const scale = 1024 ** u
  // a step of 2^-k of the unit needs k decimals (0.25 GiB); the unit is at most `ticks` steps, so k <= 2 or 3
  const digits = Math.max(0, Math.round(-Math.log2(interval / scale)))
  return {
    interval,
    max,
    formatter: (v: number) => (v === 0 ? '0' : `${trimNumber(v / scale, digits)} ${BYTE_UNITS[u]}`),
  }
}

function pad(n: number, w = 2): string {
  return String(n).padStart(w, '0')
}

/** Local clock labels for a time axis spanning `spanMs`: "MM-dd HH:mm" over a day, "HH:mm" over ten minutes,
 * "HH:mm:ss" over ten seconds, then one, two or three decimals of the second as the span needs. */
export function clockFormatter(spanMs: number): (ms: number) => string {
  const span = Math.abs(spanMs)
  const decimals = span >= 10_000 ? 0 : span >= 1_000 ? 1 : span >= 100 ? 2 : 3
  return (ms: number) => {
    const d = new Date(ms)
    const hm = `${pad(d.getHours())}:${pad(d.getMinutes())}`
    if (span > 86_400_000) return `${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${hm}`
    if (span >= 600_000) return hm
    const sec = `${hm}:${pad(d.getSeconds())}`
    if (!decimals) return sec
    const frac = pad(d.getMilliseconds(), 3).slice(0, decimals).replace(/0+$/, '')
    return frac ? `${sec}.${frac}` : sec
  }
}

/** Decimals that write `step` exactly (0.2 -> 1, 0.25 -> 2, 5 -> 0), at most 12. */
function decimalsOf(step: number): number {
  for (let d = 0; d < 12; d++) {
    const scaled = step * 10 ** d
    if (Math.abs(scaled - Math.round(scaled)) < 1e-6 * Math.max(1, scaled)) return d
  }
  return 12
}

/**
 * Value-axis ticks whose neighbours differ by about `spacing` or more (e.g. the visible range / 10): the short
 * form (30.5G, 4.41k) where its three significant digits tell them apart, else as many digits as the spacing
 * needs (30.51G / 30.52G, 4.411k / 4.412k, not "30.5G" five times). Ticks are multiples of an interval at least
 * `spacing`, so the extra digits are exact and trailing zeros are dropped.
 */
export function spacedTickFormatter(spacing: number): (v: number) => string {
  if (!(spacing > 0) || !Number.isFinite(spacing)) return formatTick
  const step = 10 ** Math.floor(Math.log10(spacing)) // a power of ten at most the spacing
  return (v: number) => {
    const a = Math.abs(v)
    if (v === 0 || !Number.isFinite(v)) return formatTick(v)
    // significant digits that separate ticks `step` apart
    const digits = Math.floor(Math.log10(a)) - Math.floor(Math.log10(step)) + 1
    if (a < 1e-3) return v.toExponential(Math.min(12, Math.max(1, digits - 1)))
    const [div, suffix] = a >= 1e9 ? [1e9, 'G'] : a >= 1e6 ? [1e6, 'M'] : a >= 1e3 ? [1e3, 'k'] : [1, '']
    if (digits <= (div === 1 ? 4 : 3)) return formatTick(v)
    return trimNumber(v / div, decimalsOf(step / div)) + suffix
  }
}
