// Which landscape a page shows, shared by the landscape page and the comparison's loss-graph tab:
// an interval index or 'final', from the URL value, the run's intervals and whether it has a final one.
import type { LandscapeInterval } from '@/api/types'

/** A run has a final ("result") landscape when one of its tags is `landscape_[<n>]`. */
export function hasFinalLandscape(tags: readonly string[] | undefined): boolean {
  return (tags ?? []).some((tag) => /^landscape_\[\d+\]/.test(tag))
}

/** The shown entry: the URL's interval index or 'final' when valid, else the first interval, else 'final', else ''. */
export function landscapeSelection(wanted: string, intervals: readonly LandscapeInterval[], hasFinal: boolean): string {
  if (wanted === 'final' && hasFinal) return 'final'
  const i = Number(wanted)
  if (wanted !== '' && Number.isInteger(i) && i >= 0 && i < intervals.length) return String(i)
  return intervals.length ? '0' : hasFinal ? 'final' : ''
}

/** The `landscape/landscapes` query for a selection (not '') of a run. */
export function landscapeQuery(
  trainId: string,
  selection: string,
  intervals: readonly LandscapeInterval[],
): { train_id: string[]; type: 'final' } | { train_id: string[]; type: 'interval'; interval_id: string } {
  return selection === 'final'
    ? { train_id: [trainId], type: 'final' }
    : { train_id: [trainId], type: 'interval', interval_id: intervals[Number(selection)].id }
}
