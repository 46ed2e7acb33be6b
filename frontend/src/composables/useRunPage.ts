// Shared setup of the per-run data pages (scalars, images, histograms, tensors, ...):
// the URL state every one of them has (train_id, tag, filter), the run (useRun) and the
// tags of one plugin, filtered by the tag selection.
import { computed } from 'vue'
import type { PluginName, PluginTags, RunExtras, TbKind } from '@/api/client'
import { codecs, useQueryState } from './useQueryState'
import { useRun } from './useRun'
import { useTagFilter } from './useTagFilter'

/**
 * `list` turns the plugin's tags into the ones the page lists (the Scalars page folds `vs samples` twins and
 * add_scalars groups, lib/scalarTags.ts); by default they are listed as the server sends them.
 */
export function useRunPage(
  plugin: PluginName | TbKind | null,
  list?: (tags: string[], plugins: PluginTags, extras: RunExtras) => string[],
  runOpts: { partial?: boolean } = {},
) {
  const query = useQueryState()
  const { param } = query
  const trainId = param('train_id', codecs.string(''))
  const selected = param('tag', codecs.list())
  const filter = param('filter', codecs.string(''))
  const run = useRun(trainId, runOpts)
  const tags = computed(() => {
    const raw = plugin ? (run.plugins.value[plugin] ?? []) : []
    return list ? list(raw, run.plugins.value, run.extras.value) : raw
  })
  /**
   * The tags with a chart: selected (`tag` absent from the URL = all) and matching the filter
   * (as MindInsight's search box, it narrows the charts too; a regex is matched off the page's thread), in
   * server order.
   */
  const filtered = useTagFilter(() => tags.value, () => filter.value)
  const shown = computed(() => {
    const sel = selected.value
    const matching = filtered.value.tags
    return sel === null ? matching : matching.filter((x) => sel.includes(x))
  })
  void run.load()
  return { ...query, trainId, selected, filter, run, tags, shown }
}
