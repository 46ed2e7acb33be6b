// Loading the lineages and saving tag/remark, shared by the model- and data-lineage pages.
import { computed, ref, shallowRef } from 'vue'
import { api, ApiError, type LineageObject } from '@/api/client'
import { useFetch } from '@/composables/useFetch'
import { onRefresh } from '@/composables/useRefresh'

export function useLineageRows(condition: Record<string, unknown>) {
  const objects = shallowRef<LineageObject[]>([])
  const loaded = ref(false)
  /** The last failed tag/remark save (shown as a banner). */
  const saveError = shallowRef<ApiError | null>(null)
  const busy = ref<Record<string, boolean>>({})
  // A search answered before a save finished may carry the old note: keep each save as an
  // overlay with the sequence number of its completion (Infinity while in flight), and apply
  // it to responses whose request started before that.
  let seq = 0
  const overlay = new Map<string, { patch: { tag?: number; remark?: string }; done: number }>()

  function withOverlay(list: LineageObject[], startedAt: number): LineageObject[] {
    return list.map((o) => {
      const p = overlay.get(o.summary_dir)
      return p && p.done > startedAt ? { ...o, added_info: { ...(o.added_info ?? {}), ...p.patch } } : o
    })
  }

  // one listing, asked at once and on every refresh; the rows shown stay through a failed refresh
  const { state, error, load } = useFetch(
    () => 0,
    async (signal) => {
      const startedAt = seq
      const res = await api.lineages(condition, { signal })
      objects.value = withOverlay(res.object ?? [], startedAt)
      loaded.value = true
    },
  )
  const loading = computed(() => state.value === 'loading')

  function patchLocal(id: string, patch: { tag?: number; remark?: string }): void {
    objects.value = objects.value.map((o) =>
      o.summary_dir === id ? { ...o, added_info: { ...(o.added_info ?? {}), ...patch } } : o,
    )
  }

  /** Optimistic save through `PUT lineagemgr/lineages?train_id=`; reverted on error. */
  async function saveNote(id: string, patch: { tag?: number; remark?: string }): Promise<boolean> {
    const before = objects.value.find((o) => o.summary_dir === id)?.added_info ?? {}
    const revert: { tag?: number; remark?: string } = {}
    if ('tag' in patch) revert.tag = before.tag ?? 0
    if ('remark' in patch) revert.remark = before.remark ?? ''
    patchLocal(id, patch)
    const entry = { patch: { ...(overlay.get(id)?.patch ?? {}), ...patch }, done: Infinity }
    overlay.set(id, entry)
    busy.value = { ...busy.value, [id]: true }
    try {
      await api.updateLineage(id, patch)
      entry.done = ++seq
      saveError.value = null
      return true
    } catch (e) {
      if (overlay.get(id) === entry) overlay.delete(id)
      patchLocal(id, revert)
      saveError.value = e instanceof ApiError ? e : new ApiError('http', String(e))
      return false
    } finally {
      const next = { ...busy.value }
      delete next[id]
      busy.value = next
    }
  }

  onRefresh(load)

  return { objects, loaded, loading, error, saveError, busy, load, saveNote }
}
