// Loads one run for a data page: asks the server to cache it (POST train-job-caches),
// reads its brief info (train-jobs?train_id=, through useRunPresence: the rule every page follows when a run
// disappears) and its tags (the listing item's when the run is cached, else `plugins`: runPrefetch.ts). While
// the server is still loading the run (CACHING, every tag list empty) it re-asks every second.
// `partial`: the page takes tag lists cut to TAG_LIMIT (`extras.tag_counts` gives the full counts, `truncated`
// says whether a list is cut) until it asks for them whole (`loadAll`).
import { computed, onBeforeUnmount, ref, shallowRef, watch, type Ref } from 'vue'
import { api, ApiError, isAbort, PLUGIN_NAMES, TB_KINDS, type PluginTags, type PluginsResponse, type RunExtras } from '@/api/client'
import { t } from '@/i18n'
import { formatBytes } from '@/lib/format'
import { onRefresh } from './useRefresh'
import { askTags, isTruncated, runTags, takeRunPrefetch } from './runPrefetch'
import { useRunPresence } from './useRunPresence'

export type RunStatus = 'idle' | 'loading' | 'caching' | 'ready' | 'notFound' | 'error'

const RETRY_MS = 1000
const MAX_RETRIES = 120

export function emptyPlugins(): PluginTags {
  return Object.fromEntries(PLUGIN_NAMES.map((p) => [p, []])) as unknown as PluginTags
}

/** Whether a run has anything to show: MindInsight's kinds, the TensorBoard kinds, hparams sessions below it. */
export function anyData(plugins: PluginTags, extras: RunExtras): boolean {
  return (
    PLUGIN_NAMES.some((p) => plugins[p]?.length) || TB_KINDS.some((k) => plugins[k]?.length) || !!extras.hparams_sessions?.length
  )
}

export function useRun(trainId: Ref<string>, opts: { partial?: boolean } = {}) {
  const status = ref<RunStatus>('idle')
  const { job, check } = useRunPresence(trainId)
  const plugins = shallowRef<PluginTags>(emptyPlugins())
  /** The additive fields of `plugins`: add_scalars groups, `vs samples` twins, hparams sessions. */
  const extras = shallowRef<RunExtras>({})
  const error = shallowRef<ApiError | null>(null)
  const damaged = computed(() => job.value !== null && job.value.is_integrity === false)
  const hasData = computed(() => anyData(plugins.value, extras.value))
  /** "12 MB of 40 MB (30 %)" while the server loads the run (load_progress), else ''. */
  const progress = computed(() => {
    const p = job.value?.load_progress
    if (!p || !(p.bytes_total > 0)) return ''
    const pct = Math.min(100, Math.floor((100 * p.bytes_read) / p.bytes_total))
    return t('common.cachingProgress', { read: formatBytes(p.bytes_read), total: formatBytes(p.bytes_total), pct })
  })
  /** Incremented whenever fresh tags arrived (views reload their data on it). */
  const version = ref(0)
  /** some tag list is cut to TAG_LIMIT (a `partial` page before `loadAll`) */
  const truncated = computed(() => isTruncated({ plugins: plugins.value, tag_counts: extras.value.tag_counts }))
  /** the page asked for whole lists (`loadAll`): later loads ask for them whole too */
  let wantAll = false
  const partial = () => !!opts.partial && !wantAll

  let controller: AbortController | null = null
  let retryTimer: number | undefined
  let retries = 0
  /** The server's data_version of the run when the page last (re)loaded its data ('' = unknown). */
  let loadedVersion = ''

  async function load(fromRefresh = false): Promise<void> {
    const id = trainId.value
    window.clearTimeout(retryTimer)
    if (!id) {
      status.value = 'notFound'
      return
    }
    controller?.abort()
    const ctl = new AbortController()
    controller = ctl
    if (!fromRefresh && status.value !== 'caching') status.value = 'loading'
    // The router may have asked already (runPrefetch.ts: the first visit, before this page's code loaded).
    const pre = fromRefresh ? null : takeRunPrefetch(id)
    try {
      await (pre?.cache ?? api.cacheTrainJobs([id], { signal: ctl.signal })).catch((e) => {
        if (e instanceof ApiError && (e.kind === 'network' || e.kind === 'aborted')) throw e
      })
      // Ask for the tags only when the server lists the run: `plugins` of an unknown id is a 400,
      // which the browser logs as a console error.
      const presence = await check(ctl.signal, pre?.jobs)
      if (ctl.signal.aborted) return
      const found = job.value
      // A refresh of a run whose data did not change (same data_version) reloads nothing: the pages ask for
      // their data again only when the server has new data, so an unchanged run costs one small request
      // per refresh, and a run deleted meanwhile is not asked for (no 400 in the console).
      if (fromRefresh && status.value === 'ready' && found?.data_version && found.data_version === loadedVersion) return
      let tags = found ? await (pre ? pre.plugins : runTags(id, found, partial(), ctl.signal)) : null
      // the router's answer may be cut (its route takes cut lists) while this page wants them whole
      if (tags && !partial() && isTruncated(tags)) tags = await askTags(id, false, ctl.signal)
      if (ctl.signal.aborted) return
      if (!found && !tags) {
        job.value = null
        // While the server is still scanning the base dir the run may just not be listed yet.
        if (presence === 'pending' && retries < MAX_RETRIES) {
          status.value = 'caching'
          retries++
          retryTimer = window.setTimeout(() => load(true), RETRY_MS)
          return
        }
        status.value = 'notFound'
        return
      }
      job.value = found
      const { next, nextExtras } = applyTags(tags)
      error.value = null
      const empty = !anyData(next, nextExtras)
      const stillLoading = empty && (!found || found.cache_status !== 'CACHED') && (found?.summary_files ?? 1) > 0
      if (stillLoading && retries < MAX_RETRIES) {
        status.value = 'caching'
        retries++
        retryTimer = window.setTimeout(() => load(true), RETRY_MS)
        return
      }
      retries = 0
      status.value = 'ready'
      loadedVersion = found?.cache_status === 'CACHED' ? (found.data_version ?? '') : ''
      version.value++
    } catch (e) {
      if (isAbort(e)) return
      error.value = e instanceof ApiError ? e : new ApiError('http', String(e))
      // Keep showing what we had if a refresh fails; show the error otherwise.
      if (!fromRefresh || status.value !== 'ready') status.value = 'error'
    }
  }

  /** Sets the tags of an answer (null: none); the new lists for the caller's checks. */
  function applyTags(tags: PluginsResponse | null): { next: PluginTags; nextExtras: RunExtras } {
    const next = tags?.plugins ?? emptyPlugins()
    if (JSON.stringify(next) !== JSON.stringify(plugins.value)) plugins.value = next
    const nextExtras: RunExtras = {
      scalar_groups: tags?.scalar_groups,
      samples_twins: tags?.samples_twins,
      hparams_sessions: tags?.hparams_sessions,
      tag_counts: tags?.tag_counts,
    }
    if (JSON.stringify(nextExtras) !== JSON.stringify(extras.value)) extras.value = nextExtras
    return { next, nextExtras }
  }

  let loadingAll = false
  /**
   * The whole tag lists of a `partial` page (what it needs past its first charts: tag families, the synthesis
   * lists), without reloading the page's data (`version` stays). From now on the run's loads ask for them whole.
   */
  async function loadAll(): Promise<void> {
    wantAll = true
    const id = trainId.value
    if (!truncated.value || loadingAll || status.value !== 'ready') return
    loadingAll = true
    try {
      const tags = await askTags(id, false, controller?.signal)
      if (tags && id === trainId.value && status.value === 'ready') applyTags(tags)
    } catch {
      // the page keeps the cut lists; its next load (a refresh tick) asks for whole ones
    } finally {
      loadingAll = false
    }
  }

  watch(trainId, () => {
    wantAll = false
    retries = 0
    loadedVersion = ''
    job.value = null
    plugins.value = emptyPlugins()
    extras.value = {}
    load()
  })
  onRefresh(() => {
    if (status.value !== 'caching') load(true)
  })
  onBeforeUnmount(() => {
    controller?.abort()
    window.clearTimeout(retryTimer)
  })

  return { status, job, plugins, extras, error, damaged, hasData, version, progress, truncated, load, loadAll }
}
