// How the Text page shows each text tag (its newest value): a configuration tree (a Python str(dict), as
// MindFormers writes each top-level config key), a row of the arguments table (a one-line value, as Megatron /
// MindSpeed-LLM write each argument), or markdown (anything else). A value that starts like a dict but does
// not parse is shown as text with the reason.
import type { TextItem } from '@/api/types'
import { isContainer, looksLikeLiteral, parsePyLiteral, PyParseError, type PyNode } from './pyLiteral'

export const TEXT_SUFFIX = '/text_summary'
/** Longest one-line value shown as a table row. */
export const ARG_MAX_CHARS = 300

export type TextEntry =
  | { kind: 'config'; tag: string; key: string; item: TextItem; tree: PyNode }
  | { kind: 'arg'; tag: string; key: string; item: TextItem }
  | { kind: 'markdown'; tag: string; key: string; item: TextItem; parseError?: string }

/** The key a text tag stands for: the tag without `/text_summary` (as `text/compare` names it). */
export function textKey(tag: string): string {
  return tag.endsWith(TEXT_SUFFIX) && tag.length > TEXT_SUFFIX.length ? tag.slice(0, -TEXT_SUFFIX.length) : tag
}

export function classifyText(tag: string, item: TextItem): TextEntry {
  const key = textKey(tag)
  const value = item.value
  const oneLine = !value.includes('\n') && value.length <= ARG_MAX_CHARS
  if (looksLikeLiteral(value)) {
    try {
      const tree = parsePyLiteral(value)
      const nested = tree.kind === 'dict' ? tree.entries.length > 0 : isContainer(tree) && tree.items.some(isContainer)
      if (nested || !oneLine) return { kind: 'config', tag, key, item, tree }
      return { kind: 'arg', tag, key, item }
    } catch (e) {
      if (!item.truncated && oneLine && !value.trimStart().startsWith('{')) return { kind: 'arg', tag, key, item }
      return { kind: 'markdown', tag, key, item, parseError: e instanceof PyParseError ? e.message : String(e) }
    }
  }
  return oneLine ? { kind: 'arg', tag, key, item } : { kind: 'markdown', tag, key, item }
}
