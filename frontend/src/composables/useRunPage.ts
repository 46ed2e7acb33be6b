// Shared setup of the per-run data pages (scalars, images, histograms, tensors, ...):
// the URL state every one of them has (train_id, tag, filter), the run (useRun) and the
// tags of one plugin, filtered by the tag selection.
import { computed } from 'vue'
import type { PluginName } from '@/api/client'
import { codecs, useQueryState } from './useQueryState'
import { useRun } from './useRun'

export function useRunPage(plugin: PluginName | null) {
  const query = useQueryState()
  const { param } = query
  const trainId = param('train_id', codecs.string(''))
  const selected = param('tag', codecs.list())
  const filter = param('filter', codecs.string(''))
  const run = useRun(trainId)
  const tags = computed(() => (plugin ? (run.plugins.value[plugin] ?? []) : []))
  /** The selected tags in server order; `tag` absent from the URL means all of them. */
  const shown = computed(() => {
    const sel = selected.value
    return sel === null ? tags.value : tags.value.filter((x) => sel.includes(x))
  })
  void run.load()
  return { ...query, trainId, selected, filter, run, tags, shown }
}

export type RunPageState = ReturnType<typeof useRunPage>
