// Profiler figures as shown: durations (µs, ms, s) and byte sizes (B ... TiB).

export function fmtUs(us: number | null | undefined): string {
  if (us === null || us === undefined || !Number.isFinite(us)) return '–'
  const a = Math.abs(us)
  if (a >= 1e6) return `${(us / 1e6).toFixed(3)} s`
  if (a >= 1e3) return `${(us / 1e3).toFixed(3)} ms`
  return `${Number(us.toFixed(3))} µs`
}

export function fmtBytes(b: number | null | undefined): string {
  if (b === null || b === undefined || !Number.isFinite(b)) return '–'
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let v = b
  let i = 0
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return `${i === 0 ? v : v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2)} ${units[i]}`
}
