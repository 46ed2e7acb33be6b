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

/** What is wrong with one entry per axis (an integer index within the axis, or ':', at most two), or null. */
export function dimsProblem(entries: string[], shape: number[]): DimsProblem | null {
  if (entries.length !== shape.length) return { kind: 'rank' }
  let slices = 0
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i].trim()
    if (e === ':') {
      slices++
      continue
    }
    if (!/^-?\d+$/.test(e)) return { kind: 'syntax', dim: i, value: e }
    const n = Number(e)
    if (n >= shape[i] || n < -shape[i]) return { kind: 'range', dim: i, size: shape[i], value: e }
  }
  return slices > 2 ? { kind: 'slices' } : null
}

/** Validates one entry per axis: an integer index within the axis, or ':' (at most two). */
export function validateDims(entries: string[], shape: number[]): string | null {
  return dimsProblem(entries, shape)?.kind ?? null
}

export function dimsString(entries: string[]): string {
  return `[${entries.map((e) => e.trim()).join(',')}]`
}

export function parseDimsString(s: string | undefined, rank: number): string[] | null {
  if (!s) return null
  const m = /^\[(.*)\]$/.exec(s.trim())
  if (!m) return null
  const parts = m[1] === '' ? [] : m[1].split(',').map((x) => x.trim())
  return parts.length === rank ? parts : null
}
