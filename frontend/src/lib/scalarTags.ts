// The scalar tags a run page lists. TensorBoard writers leave two kinds of companion tags the server names
// (plugins: `samples_twins`, `scalar_groups`): a metric's `vs samples` twin (same metric, step = consumed
// samples), offered as the x-axis "samples" instead of a chart of its own, and the per-key series of an
// add_scalars group (`<main>/<key>/scalar`), drawn as one chart per group (listed under the main tag).
import type { RunExtras } from '@/api/types'

/** The series tags of each add_scalars group: main tag -> `<main>/<key>/scalar` per key. */
export function groupMemberTags(extras: RunExtras): Map<string, string[]> {
  const out = new Map<string, string[]>()
  for (const [main, keys] of Object.entries(extras.scalar_groups ?? {})) out.set(main, keys.map((k) => `${main}/${k}/scalar`))
  return out
}

/**
 * The tags to list, in the server's order: twins and group series left out, each group listed once under its
 * main tag, where its first series was.
 */
export function visibleScalarTags(tags: string[], extras: RunExtras): string[] {
  const twins = new Set(Object.values(extras.samples_twins ?? {}))
  const memberOf = new Map<string, string>()
  for (const [main, members] of groupMemberTags(extras)) for (const m of members) memberOf.set(m, main)
  const out: string[] = []
  const placed = new Set<string>()
  for (const tag of tags) {
    const main = memberOf.get(tag)
    if (main !== undefined) {
      if (!placed.has(main)) {
        placed.add(main)
        out.push(main)
      }
      continue
    }
    if (!twins.has(tag)) out.push(tag)
  }
  return out
}

/**
 * Above this many scalar tags the page lists them from the server (`datavisual/tags`: searched, paged, grouped
 * by prefix) in a virtualised list, instead of filtering the whole list on the page (issue 32).
 */
export const SERVER_TAG_LIST_THRESHOLD = 500
