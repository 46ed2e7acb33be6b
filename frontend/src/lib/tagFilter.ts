// Tag filtering as TensorBoard does it: the filter is a case-insensitive regular
// expression; when it does not compile it is matched as plain text.
export interface TagFilterResult {
  tags: string[]
  invalid: boolean
}

export function filterTags(tags: string[], pattern: string): TagFilterResult {
  const p = pattern.trim()
  if (!p) return { tags, invalid: false }
  try {
    const re = new RegExp(p, 'i')
    return { tags: tags.filter((t) => re.test(t)), invalid: false }
  } catch {
    const low = p.toLowerCase()
    return { tags: tags.filter((t) => t.toLowerCase().includes(low)), invalid: true }
  }
}
