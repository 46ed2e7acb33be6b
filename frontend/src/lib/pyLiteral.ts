// Parses the text of a Python literal as `str(dict)` / `repr()` print it (MindFormers writes every top-level
// config key with `add_text(key, str(dict))`: single quotes, True / False / None, tuples) into a tree the Text
// page shows as a collapsible tree. Literals only (what `ast.literal_eval` accepts, plus `inf` / `nan`, which
// `str(float)` prints); nothing is ever evaluated. Bounded: nesting depth and node count are capped, and a
// value that does not parse gives a PyParseError naming the position, so the page shows the text as written.

export type PyNode =
  | { kind: 'dict'; entries: { key: PyNode; value: PyNode }[] }
  | { kind: 'list' | 'tuple' | 'set'; items: PyNode[] }
  | { kind: 'str'; value: string }
  /** numbers keep the text as written (`1e-05`, `1000000.0`, big ints) */
  | { kind: 'num'; text: string }
  | { kind: 'bool'; value: boolean }
  | { kind: 'none' }

export const MAX_DEPTH = 100
export const MAX_NODES = 100_000

export class PyParseError extends Error {
  readonly pos: number
  constructor(message: string, pos: number) {
    super(`${message} (at character ${pos + 1})`)
    this.name = 'PyParseError'
    this.pos = pos
  }
}

/** Whether a text starts like a dict, list, tuple or set (worth trying to parse as a config). */
export function looksLikeLiteral(text: string): boolean {
  const s = text.trimStart()
  return s.startsWith('{') || s.startsWith('[') || (s.startsWith('(') && s.trimEnd().endsWith(')'))
}

const NUMBER = /^[-+]?(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:\d[\d_]*)?\.?\d[\d_]*(?:[eE][-+]?\d+)?|\d[\d_]*\.|inf|nan)/
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', f: '\f', v: '\v', '0': '\0' }

export function parsePyLiteral(text: string): PyNode {
  let pos = 0
  let nodes = 0

  const fail = (message: string): never => {
    throw new PyParseError(message, pos)
  }
  const skip = (): void => {
    while (pos < text.length && /\s/.test(text[pos])) pos++
  }
  const node = <T extends PyNode>(n: T): T => {
    if (++nodes > MAX_NODES) fail(`more than ${MAX_NODES} values`)
    return n
  }

  function str(): PyNode {
    let prefix = ''
    while (/[rRbBuU]/.test(text[pos])) prefix += text[pos++]
    const raw = /r/i.test(prefix)
    const quote = text[pos]
    const triple = text.startsWith(quote.repeat(3), pos)
    pos += triple ? 3 : 1
    let out = ''
    for (;;) {
      if (pos >= text.length) fail('unterminated string')
      const c = text[pos]
      if (triple ? text.startsWith(quote.repeat(3), pos) : c === quote) {
        pos += triple ? 3 : 1
        break
      }
      if (!triple && c === '\n') fail('line break inside a string')
      if (c === '\\' && !raw) {
        const e = text[pos + 1]
        if (e === 'x' || e === 'u' || e === 'U') {
          const len = e === 'x' ? 2 : e === 'u' ? 4 : 8
          const hex = text.slice(pos + 2, pos + 2 + len)
          if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) fail('bad escape')
          out += String.fromCodePoint(parseInt(hex, 16))
          pos += 2 + len
        } else if (e in ESCAPES) {
          out += ESCAPES[e]
          pos += 2
        } else if (e === '\n') {
          pos += 2
        } else {
          out += c + (e ?? '')
          pos += 2
        }
        continue
      }
      out += c
      pos++
    }
    return node({ kind: 'str', value: out })
  }

  function items(close: string, depth: number): PyNode[] {
    const list: PyNode[] = []
    skip()
    while (text[pos] !== close) {
      list.push(value(depth + 1))
      skip()
      if (text[pos] === ',') {
        pos++
        skip()
      } else if (text[pos] !== close) fail(`expected ',' or '${close}'`)
    }
    pos++
    return list
  }

  function value(depth: number): PyNode {
    if (depth > MAX_DEPTH) fail(`nested more than ${MAX_DEPTH} levels`)
    skip()
    const c = text[pos]
    if (c === undefined) fail('unexpected end of text')
    if (c === '{') {
      pos++
      skip()
      const entries: { key: PyNode; value: PyNode }[] = []
      let isSet = false
      while (text[pos] !== '}') {
        const key = value(depth + 1)
        skip()
        if (text[pos] === ':' && !isSet) {
          pos++
          entries.push({ key, value: value(depth + 1) })
        } else if (!entries.length) {
          isSet = true
          entries.push({ key, value: key })
        } else if (isSet) {
          entries.push({ key, value: key })
        } else fail("expected ':'")
        skip()
        if (text[pos] === ',') {
          pos++
          skip()
        } else if (text[pos] !== '}') fail("expected ',' or '}'")
      }
      pos++
      return isSet ? node({ kind: 'set', items: entries.map((e) => e.key) }) : node({ kind: 'dict', entries })
    }
    if (c === '[') {
      pos++
      return node({ kind: 'list', items: items(']', depth) })
    }
    if (c === '(') {
      pos++
      return node({ kind: 'tuple', items: items(')', depth) })
    }
    if (c === "'" || c === '"' || (/[rRbBuU]/.test(c) && /^[rRbBuU]{1,2}['"]/.test(text.slice(pos, pos + 3)))) return str()
    const word = /^[A-Za-z_]\w*/.exec(text.slice(pos, pos + 64))?.[0]
    if (word === 'True' || word === 'False') {
      pos += word.length
      return node({ kind: 'bool', value: word === 'True' })
    }
    if (word === 'None') {
      pos += 4
      return node({ kind: 'none' })
    }
    if (word === 'set' && text.startsWith('set()', pos)) {
      pos += 5
      return node({ kind: 'set', items: [] })
    }
    const num = NUMBER.exec(text.slice(pos, pos + 400))?.[0]
    if (num && !/^[-+]?$/.test(num)) {
      pos += num.length
      if (/^[A-Za-z_(]/.test(text[pos] ?? '')) fail('not a literal')
      return node({ kind: 'num', text: num })
    }
    return fail(word ? `'${word}' is not a literal` : `unexpected '${c}'`)
  }

  const root = value(0)
  skip()
  if (pos < text.length) fail('text after the value')
  return root
}

/** A leaf's text as Python prints it (`'a'` for strings in containers is shown without quotes here). */
export function leafText(n: PyNode): string {
  switch (n.kind) {
    case 'str':
      return n.value
    case 'num':
      return n.text
    case 'bool':
      return n.value ? 'True' : 'False'
    case 'none':
      return 'None'
    case 'dict':
      return `{${n.entries.length}}`
    default:
      return `[${n.items.length}]`
  }
}

export function isContainer(n: PyNode): n is Extract<PyNode, { kind: 'dict' | 'list' | 'tuple' | 'set' }> {
  return n.kind === 'dict' || n.kind === 'list' || n.kind === 'tuple' || n.kind === 'set'
}

/** A tree row for display: a key (dict key or index) and a node. */
export interface TreeItem {
  key: string
  node: PyNode
  /** dotted path from the root, as `text/compare` names keys (`model.model_config.hidden_size`, `callbacks[1].type`) */
  path: string
}

export function children(n: PyNode, path: string): TreeItem[] {
  if (n.kind === 'dict')
    return n.entries.map(({ key, value }) => {
      const k = leafText(key)
      return { key: k, node: value, path: path ? `${path}.${k}` : k }
    })
  if (n.kind === 'list' || n.kind === 'tuple' || n.kind === 'set')
    return n.items.map((node, i) => ({ key: String(i), node, path: `${path}[${i}]` }))
  return []
}

/**
 * The paths to show for a search: every node whose key or leaf text contains `query` (case-insensitive) with all
 * that lies below it, and the ancestors of those (so they can be opened). Null when the query is empty.
 */
export function matchingPaths(items: TreeItem[], query: string): Set<string> | null {
  const q = query.trim().toLowerCase()
  if (!q) return null
  const out = new Set<string>()
  const addAll = (item: TreeItem): void => {
    out.add(item.path)
    for (const child of children(item.node, item.path)) addAll(child)
  }
  const walk = (item: TreeItem): boolean => {
    if (item.key.toLowerCase().includes(q) || (!isContainer(item.node) && leafText(item.node).toLowerCase().includes(q))) {
      addAll(item)
      return true
    }
    let hit = false
    for (const child of children(item.node, item.path)) if (walk(child)) hit = true
    if (hit) out.add(item.path)
    return hit
  }
  for (const item of items) walk(item)
  return out
}
