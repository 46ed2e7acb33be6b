// Text wrapped to a pixel width with explicit line breaks, for chart labels that must be shown whole (the lineage
// parallel axes: names like "Training dataset count" and values like "Momentum" above and beside narrow axes).
// Words are kept together; a word wider than the line is cut after a `_` `/` `.` `-` where it can be, else between
// characters. Pure: the width measure is given.

export type Measure = (text: string) => number

/** Characters after which a too-long identifier is cut first (`batch_size`, `train/loss`, `lr.decay`, `fp-16`). */
const SEPARATORS = '_/.-'

export function wrapText(text: string, width: number, measure: Measure): string[] {
  const lines: string[] = []
  let line = ''
  const push = (word: string): void => {
    const candidate = line ? `${line} ${word}` : word
    if (measure(candidate) <= width) {
      line = candidate
      return
    }
    if (line) lines.push(line)
    line = ''
    // a word wider than a whole line: as many characters per line as fit (at least one)
    let rest = word
    while (measure(rest) > width && rest.length > 1) {
      let n = rest.length - 1
      while (n > 1 && measure(rest.slice(0, n)) > width) n--
      // prefer to cut after a separator of an identifier (batch_|size, train/|loss) over mid-word
      const cut = Math.max(...[...SEPARATORS].map((s) => rest.lastIndexOf(s, n - 1)))
      if (cut > 0) n = cut + 1
      lines.push(rest.slice(0, n))
      rest = rest.slice(n)
    }
    line = rest
  }
  for (const word of text.split(/\s+/).filter(Boolean)) push(word)
  if (line || !lines.length) lines.push(line)
  return lines
}

let context: CanvasRenderingContext2D | null = null

/** Width in px of `text` in the charts' font (ECharts' default sans-serif) at `size` px; ~0.6 em a character
 * where no canvas is available. */
export function textWidth(text: string, size = 12): number {
  if (typeof document !== 'undefined') {
    context ??= document.createElement('canvas').getContext('2d')
    if (context) {
      context.font = `${size}px sans-serif`
      return context.measureText(text).width
    }
  }
  return text.length * size * 0.6
}
