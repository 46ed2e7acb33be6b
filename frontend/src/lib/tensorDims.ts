// Dimension slicing strings for `datavisual/tensors?detail=data&dims=[0,:,:]`.

/** Default selection: the last two axes whole, index 0 on the others. */
export function defaultDims(shape: number[]): string[] {
  return shape.map((_, i) => (i >= shape.length - 2 ? ':' : '0'))
}

export interface DimsProblem {
  kind: 'rank' | 'syntax' | 'range' | 'slices'
  /** The offending dimension (0-based) for 'syntax' and 'range'. */
  dim?: number
  /** That dimension's size ('range'). */
  size?: number
  value?: string
}

/** `start:stop[:step]` (each part optional, as in numpy), e.g. `:10`, `5:`, `0:20:2`. */
const SLICE = /^(-?\d*):(-?\d*)(?::(-?\d*))?$/

/**
 * What is wrong with one entry per axis, or null: an integer index within the axis, or a slice
 * (`:` or `start:stop[:step]`, step not 0), at most two slices.
 */
export function dimsProblem(entries: string[], shape: number[]): DimsProblem | null {
  if (entries.length !== shape.length) return { kind: 'rank' }
  let slices = 0
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i].trim()
    const m = SLICE.exec(e)
    if (m) {
      if (m[3] !== undefined && m[3] !== '' && Number(m[3]) === 0) return { kind: 'syntax', dim: i, value: e }
      slices++
      continue
    }
    if (!/^-?\d+$/.test(e)) return { kind: 'syntax', dim: i, value: e }
    const n = Number(e)
    if (n >= shape[i] || n < -shape[i]) return { kind: 'range', dim: i, size: shape[i], value: e }
  }
  return slices > 2 ? { kind: 'slices' } : null
}

/** Validates one entry per axis (see dimsProblem): the kind of problem, or null. */
export function validateDims(entries: string[], shape: number[]): string | null {
  return dimsProblem(entries, shape)?.kind ?? null
}

export function dimsString(entries: string[]): string {
  return `[${entries.map((e) => e.trim()).join(',')}]`
}

/**
 * Number of values a selection reads: 1 per index, the length of each slice (numpy's rules:
 * negative bounds count from the end, bounds are clipped). Null when an entry does not parse.
 */
export function selectionSize(entries: string[], shape: number[]): number | null {
  if (entries.length !== shape.length) return null
  let n = 1
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i].trim()
    if (/^-?\d+$/.test(e)) continue
    const m = SLICE.exec(e)
    if (!m) return null
    const size = shape[i]
    const step = m[3] ? Number(m[3]) : 1
    if (step === 0) return null
    const clip = (v: string, dflt: number, lo: number, hi: number) => {
      if (v === '') return dflt
      const x = Number(v)
      return Math.min(hi, Math.max(lo, x < 0 ? x + size : x))
    }
    const len =
      step > 0
        ? Math.max(0, Math.ceil((clip(m[2], size, 0, size) - clip(m[1], 0, 0, size)) / step))
        : Math.max(0, Math.ceil((clip(m[2], -1, -1, size - 1) - clip(m[1], size - 1, -1, size - 1)) / step))
    n *= len
  }
  return n
}

export function parseDimsString(s: string | undefined, rank: number): string[] | null {
  if (!s) return null
  const m = /^\[(.*)\]$/.exec(s.trim())
  if (!m) return null
  const parts = m[1] === '' ? [] : m[1].split(',').map((x) => x.trim())
  return parts.length === rank ? parts : null
}
