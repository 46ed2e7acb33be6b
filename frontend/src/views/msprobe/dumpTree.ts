// The rows of the msprobe node tree (construct.json's Cell / Module hierarchy): depth-first from the roots,
// children in execution order (a Cell is recorded after the calls inside it, so it leads its children here by
// its first child's position), collapsed subtrees hidden; a search shows the matches with their ancestors.

export interface TreeNode {
  name: string
  parent: string | null
  /** execution index in dump.json; null for a node only construct.json names */
  index: number | null
  bad: boolean
}

export interface TreeRow {
  name: string
  depth: number
  hasChildren: boolean
  bad: boolean
}

export function visibleRows(nodes: readonly TreeNode[], collapsed: ReadonlySet<string>, search = ''): TreeRow[] {
  const byName = new Map(nodes.map((n) => [n.name, n]))
  const children = new Map<string | null, TreeNode[]>()
  for (const n of nodes) {
    const parent = n.parent !== null && byName.has(n.parent) && n.parent !== n.name ? n.parent : null
    const list = children.get(parent)
    if (list) list.push(n)
    else children.set(parent, [n])
  }
  // A subtree's position: the earliest execution index inside it.
  const first = new Map<string, number>()
  const firstOf = (n: TreeNode, seen: Set<string>): number => {
    const known = first.get(n.name)
    if (known !== undefined) return known
    if (seen.has(n.name)) return Number.MAX_SAFE_INTEGER // a cycle in a damaged construct.json
    seen.add(n.name)
    let best = n.index ?? Number.MAX_SAFE_INTEGER
    for (const c of children.get(n.name) ?? []) best = Math.min(best, firstOf(c, seen))
    first.set(n.name, best)
    return best
  }
  for (const n of nodes) firstOf(n, new Set())
  for (const list of children.values()) list.sort((a, b) => (first.get(a.name) ?? 0) - (first.get(b.name) ?? 0))

  const needle = search.trim().toLowerCase()
  let keep: Set<string> | null = null
  if (needle) {
    keep = new Set()
    for (const n of nodes) {
      if (!n.name.toLowerCase().includes(needle)) continue
      for (let cur: TreeNode | undefined = n; cur && !keep.has(cur.name); cur = cur.parent ? byName.get(cur.parent) : undefined) keep.add(cur.name)
    }
  }
  const rows: TreeRow[] = []
  const visited = new Set<string>()
  const walk = (n: TreeNode, depth: number): void => {
    if (visited.has(n.name) || (keep && !keep.has(n.name))) return
    visited.add(n.name)
    const kids = children.get(n.name) ?? []
    rows.push({ name: n.name, depth, hasChildren: kids.length > 0, bad: n.bad })
    if (collapsed.has(n.name) && !needle) return
    for (const c of kids) walk(c, depth + 1)
  }
  for (const root of children.get(null) ?? []) walk(root, 0)
  return rows
}
