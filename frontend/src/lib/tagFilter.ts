// Tag filtering as TensorBoard does it: the filter is a case-insensitive regular expression; when it does not
// compile it is matched as plain text. The filter comes from the URL (a link anyone can send) and the tags from
// files, so a filter that can backtrack never runs on the page's thread: it runs in the regex worker with a time
// limit (lib/safeRegex.ts, as custom scalars do), and one that takes longer is matched as plain text instead.
import { compilePattern, matchGuarded, MATCH_TIMEOUT_MS, spawnRegexWorker, type MatchResult, type WorkerLike } from './safeRegex'

export interface TagFilterResult {
  tags: string[]
  /** not a usable regex (does not compile, or too long): matched as plain text */
  invalid: boolean
  /** the regex took longer than the time limit on these tags: matched as plain text */
  slow: boolean
  /** the worker has not answered yet (the tags are the previous answer's) */
  pending?: boolean
}

/** A pattern without these is a literal: its search is linear and runs on the page's thread. */
const REGEX_SYNTAX = /[\\^$.*+?()[\]{}|]/

function plainText(tags: string[], p: string): string[] {
  const low = p.toLowerCase()
  return tags.filter((t) => t.toLowerCase().includes(low))
}

/**
 * The answer when it needs no worker: an empty filter, a literal (no regex syntax), or a pattern that is not a
 * usable regex (matched as plain text). Null for a real regex, which `filterTags` runs in the worker.
 */
export function filterTagsNow(tags: string[], pattern: string): TagFilterResult | null {
  const p = pattern.trim()
  if (!p) return { tags, invalid: false, slow: false }
  const re = compilePattern(p, 'search')
  if (!(re instanceof RegExp)) return { tags: plainText(tags, p), invalid: true, slow: false }
  if (REGEX_SYNTAX.test(p)) return null
  return { tags: tags.filter((t) => re.test(t)), invalid: false, slow: false }
}

/** The tags the filter lets through, in order; a regex is matched in a worker with a time limit. */
export async function filterTags(
  tags: string[],
  pattern: string,
  spawn: () => WorkerLike = spawnRegexWorker,
  timeoutMs = MATCH_TIMEOUT_MS,
): Promise<TagFilterResult> {
  const now = filterTagsNow(tags, pattern)
  if (now) return now
  const p = pattern.trim()
  let res: MatchResult
  try {
    ;[res] = await matchGuarded([p], tags, spawn, timeoutMs, 'search')
  } catch (e) {
    res = { pattern: p, tags: [], error: 'invalid', detail: String(e) } // the worker could not be started or fed
  }
  if (!res.error) return { tags: res.tags, invalid: false, slow: false }
  if (res.error === 'timeout') console.warn(`tag filter: regex over ${tags.length} tags took more than ${timeoutMs} ms; matched as plain text`)
  return { tags: plainText(tags, p), invalid: res.error !== 'timeout', slow: res.error === 'timeout' }
}

/**
 * The same filter as a `datavisual/tags` search (a run with too many tags to filter on the page): empty -> no
 * search, a literal -> `q` (substring), anything with regex syntax -> `regex` (the server matches a pattern
 * that does not compile, or runs too long, as plain text and says so, as `filterTags` does).
 */
export function serverTagSearch(pattern: string): { q?: string; regex?: string } {
  const p = pattern.trim()
  if (!p) return {}
  return REGEX_SYNTAX.test(p) ? { regex: p } : { q: p }
}
