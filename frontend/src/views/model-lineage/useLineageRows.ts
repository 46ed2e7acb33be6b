// Loading the lineages and saving tag/remark, shared by the model- and data-lineage pages.
import { onBeforeUnmount, onMounted, ref, shallowRef } from 'vue'
import { api, ApiError, isAbort, type LineageObject } from '@/api/client'
import { onRefresh } from '@/composables/useRefresh'

export function useLineageRows(condition: Record<string, unknown>) {
  const objects = shallowRef<LineageObject[]>([])
  const loaded = ref(false)
  const loading = ref(true)
  const error = shallowRef<ApiError | null>(null)
  /** The last failed tag/remark save (shown as a banner). */
  const saveError = shallowRef<ApiError | null>(null)
  const busy = ref<Record<string, boolean>>({})
  let controller: AbortController | null = null
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

  async function load(): Promise<void> {
    controller?.abort()
    const ctl = new AbortController()
    controller = ctl
    const startedAt = seq
    try {
      const res = await api.lineages(condition, { signal: ctl.signal })
      objects.value = withOverlay(res.object ?? [], startedAt)
      error.value = null
      loaded.value = true
    } catch (e) {
      if (isAbort(e)) return
      error.value = e instanceof ApiError ? e : new ApiError('http', String(e))
    } finally {
      if (controller === ctl) loading.value = false
    }
  }

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

  onMounted(load)
  onRefresh(load)
  onBeforeUnmount(() => controller?.abort())

  return { objects, loaded, loading, error, saveError, busy, load, saveNote }
}
