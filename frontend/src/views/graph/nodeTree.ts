// Rows of the graph page's node tree, flattened for rendering: the scopes loaded in the
// GraphStore, opened ones followed by their children, at most `max` rows (a long listing ends
// with what the store holds); a paged scope ends with a "n more on other pages" row.
import { GraphStore, isScope, lastSegment } from './graphModel'

export interface TreeRow {
  name: string
  label: string
  type: string
  depth: number
  scope: boolean
  open: boolean
  /** Set on the "n more on other pages" line of a paged scope. */
  more?: number
}

export const TREE_MAX_ROWS = 5000

export function buildTreeRows(store: GraphStore, open: ReadonlySet<string>, max = TREE_MAX_ROWS): TreeRow[] {
  const out: TreeRow[] = []
  const walk = (scope: string, depth: number): void => {
    const kids = store.children.get(scope) ?? []
    for (const name of kids) {
      if (out.length >= max) return
      const n = store.nodes.get(name)
      const scoped = isScope(n)
      const opened = scoped && open.has(name) && store.isLoaded(name)
      out.push({ name, label: lastSegment(name), type: n?.type ?? '', depth, scope: scoped, open: opened })
      if (opened) walk(name, depth + 1)
    }
    const total = store.total.get(scope)
    if (out.length < max && total !== undefined && total > kids.length) {
      out.push({ name: scope, label: '', type: '', depth, scope: false, open: false, more: total - kids.length })
    }
  }
  walk('', 0)
  return out
}
