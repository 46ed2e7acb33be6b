// CSV cells of the browser's exports (scalar charts, lineage tables, tensor slices). The text comes from summary
// files other people write, and a spreadsheet runs a cell that starts with = + - @ (or a tab / CR) as a formula
// (OWASP "CSV Injection"): such text cells get a leading single quote. Numbers, and text that is only a number
// or a NaN/Inf marker ("-0.5", "-INF"), are written as they are, so that they still read as numbers.

/** A number as JavaScript or Python write one, or a NaN/Inf marker: no formula can hide in it. */
const NUMERIC = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)$/i
/** What a spreadsheet reads as the start of a formula. */
const FORMULA_START = /^[=+\-@\t\r]/
/** What needs quoting in a CSV cell (a bare CR is a line break to many readers). */
const NEEDS_QUOTES = /[",\r\n]/

/** The cell as text, with a leading quote when a spreadsheet would run it as a formula. */
export function neutralise(v: unknown): string {
  if (v === null || v === undefined) return ''
  const s = String(v)
  if (typeof v === 'number' || NUMERIC.test(s) || !FORMULA_START.test(s)) return s
  return `'${s}`
}

/** One CSV cell: neutralised, then quoted when it holds a quote, a comma or a line break. */
export function csvCell(v: unknown): string {
  const s = neutralise(v)
  return NEEDS_QUOTES.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

/** One CSV line of cells. */
export function csvRow(cells: readonly unknown[]): string {
  return cells.map(csvCell).join(',')
}
