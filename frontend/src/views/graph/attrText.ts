// Attribute values arrive as protobuf text (`dtype: DT_INT64\nint_val: 1\n`). The panel shows
// the plain value(s) when the text is a simple scalar or list, else the text itself.
const VAL = /^\s*(?:int_val|float_val|double_val|str_val|bool_val|uint_val):\s*(.*)$/

export function attrValue(text: string): string {
  const vals: string[] = []
  let other = false
  for (const line of text.split('\n')) {
    const t = line.trim()
    if (!t || t === '}' || /^values\s*\{$/.test(t) || /^dtype:/.test(t)) continue
    const m = VAL.exec(t)
    if (m) vals.push(m[1])
    else other = true
  }
  if (other || !vals.length) return text.trim()
  const isList = /values\s*\{/.test(text)
  return isList ? `[${vals.join(', ')}]` : vals[0]
}
