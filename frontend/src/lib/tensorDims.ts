// Dimension slicing strings for `datavisual/tensors?detail=data&dims=[0,:,:]`.

/** Default selection: the last two axes whole, index 0 on the others. */
export function defaultDims(shape: number[]): string[] {
  return shape.map((_, i) => (i >= shape.length - 2 ? ':' : '0'))
}

/** Validates one entry per axis: an integer index within the axis, or ':' (at most two). */
export function validateDims(entries: string[], shape: number[]): string | null {
  if (entries.length !== shape.length) return 'rank'
  let slices = 0
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i].trim()
    if (e === ':') {
      slices++
      continue
    }
    if (!/^-?\d+$/.test(e)) return 'syntax'
    const n = Number(e)
    if (n >= shape[i] || n < -shape[i]) return 'range'
  }
  return slices > 2 ? 'slices' : null
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
