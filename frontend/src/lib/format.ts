// Number and time formatting shared by charts and tables.

export function formatNumber(v: number | null | undefined, digits = 6): string {
  if (v === null || v === undefined) return 'NaN'
  if (!Number.isFinite(v)) return String(v)
  if (v === 0) return '0'
  const a = Math.abs(v)
  if (a >= 1e6 || a < 1e-4) return v.toExponential(Math.max(1, Math.min(digits, 4)))
  return String(Number(v.toPrecision(digits)))
}

/** Three significant digits without trailing zeros after the point (120 stays 120, 1.50 -> 1.5). */
function sig3(x: number): string {
  return String(Number(x.toPrecision(3)))
}

/** Axis ticks: short form (1.2k, 3e-5). */
export function formatTick(v: number): string {
  const a = Math.abs(v)
  if (v === 0) return '0'
  if (a >= 1e9) return sig3(v / 1e9) + 'G'
  if (a >= 1e6) return sig3(v / 1e6) + 'M'
  if (a >= 1e3) return sig3(v / 1e3) + 'k'
  if (a < 1e-3) return v.toExponential(1)
  return String(Number(v.toPrecision(4)))
}

function pad(n: number, w = 2): string {
  return String(n).padStart(w, '0')
}

/** Local date-time from seconds since the epoch. */
export function formatWallTime(seconds: number, withMs = false): string {
  const d = new Date(seconds * 1000)
  const s = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(
    d.getMinutes(),
  )}:${pad(d.getSeconds())}`
  return withMs ? `${s}.${pad(d.getMilliseconds(), 3)}` : s
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '-'
  if (seconds < 60) return `${Number(seconds.toPrecision(4))}s`
  const h = Math.floor(seconds / 3600)
  const m = Math.floor((seconds % 3600) / 60)
  const s = Math.round(seconds % 60)
  return h > 0 ? `${h}h${pad(m)}m${pad(s)}s` : `${m}m${pad(s)}s`
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)
}

/** A filesystem-safe slug for download names. */
export function slug(s: string): string {
  return s.replace(/^\.\//, '').replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^_+|_+$/g, '') || 'data'
}

/** 1536 -> "1.5 KB" (powers of 1024). */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '-'
  const units = ['B', 'KB', 'MB', 'GB', 'TB']
  let v = n
  let i = 0
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return `${i === 0 ? v : Number(v.toPrecision(3))} ${units[i]}`
}
