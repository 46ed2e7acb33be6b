// Families of scalar tags that differ only by one number (a layer, expert or parameter index):
// `local_norm/layer_0/w` .. `local_norm/layer_63/w` is one family, drawn as a layer x step heatmap
// (scalars/heatmap, issue 32). Pure: the scalars page calls it on the run's tag list.

export interface TagFamily {
  /** the tags' shared pattern with the varying number as `#`: `local_norm/layer_#/w` */
  pattern: string
  /** anchored regex (Python `regex` syntax, also valid in JS) matching exactly the family's shape */
  regex: string
  /** members in the number's order: the tag and its number as written (`007` stays `007`) */
  members: { tag: string; index: string }[]
}

const DIGITS = /\d+/g
// Characters special in a Python or JS regex; `#` and whitespace too (harmless escaped, special in verbose mode)
const SPECIAL = /[.*+?^${}()|[\]\\#\s-]/g

function escapeRegex(text: string): string {
  return text.replace(SPECIAL, '\\$&')
}

/**
 * Groups `tags` by every digit run: tags equal except for the digits at one position are one family.
 * Families with fewer than `minMembers` distinct numbers are dropped, and so is a family whose member set
 * another (earlier-found) family already has. Largest families first, then by pattern.
 */
export function findTagFamilies(tags: readonly string[], minMembers = 4): TagFamily[] {
  const byKey = new Map<string, { prefix: string; suffix: string; members: { tag: string; index: string }[] }>()
  for (const tag of new Set(tags)) {
    for (const m of tag.matchAll(DIGITS)) {
      const at = m.index ?? 0
      const prefix = tag.slice(0, at)
      const suffix = tag.slice(at + m[0].length)
      // a number glued to more digits cannot happen (\d+ is greedy), so prefix/suffix fix the shape
      const key = `${prefix}\u0000${suffix}`
      let family = byKey.get(key)
      if (!family) byKey.set(key, (family = { prefix, suffix, members: [] }))
      family.members.push({ tag, index: m[0] })
    }
  }
  const families: TagFamily[] = []
  const seen = new Set<string>()
  for (const f of byKey.values()) {
    if (f.members.length < minMembers) continue
    f.members.sort((a, b) => compareIndex(a.index, b.index))
    const memberKey = f.members.map((m) => m.tag).join('\u0000')
    if (seen.has(memberKey)) continue
    seen.add(memberKey)
    families.push({
      pattern: `${f.prefix}#${f.suffix}`,
      regex: `^${escapeRegex(f.prefix)}\\d+${escapeRegex(f.suffix)}$`,
      members: f.members,
    })
  }
  return families.sort((a, b) => b.members.length - a.members.length || a.pattern.localeCompare(b.pattern))
}

/** Numeric order of digit strings of any length (BigInt-free: by length without leading zeros, then text). */
function compareIndex(a: string, b: string): number {
  const x = a.replace(/^0+(?=\d)/, '')
  const y = b.replace(/^0+(?=\d)/, '')
  return x.length - y.length || (x < y ? -1 : x > y ? 1 : 0) || a.length - b.length
}
