// The debugger page's watchpoint state: MindInsight's conditions (watchpoints/conditions), the last
// check of the dump shown and its answer, and the re-check when the dump (still being written) has
// other iterations than at the last check (`recheckIfChanged`, called after every poll of `dumps`).
import { computed, onBeforeUnmount, ref, shallowRef, watch, type Ref } from 'vue'
import { api, isAbort, type Dump, type DumpWhere, type WatchCondition, type WatchpointCheckResponse } from '@/api/client'
import { dumpSignature, firstNanInf, type conditionRequest } from './watchpoints'

export type CondRequest = ReturnType<typeof conditionRequest>

export function useWatchpoints(dump: Ref<Dump | null>, where: Ref<DumpWhere | null>) {
  const conditions = shallowRef<WatchCondition[] | null>(null)
  const targets = ref<string[]>(['all'])
  const conditionsError = shallowRef<unknown>(null)

  async function loadConditions(): Promise<void> {
    try {
      const res = await api.watchConditions()
      conditions.value = res.conditions
      targets.value = res.targets
      conditionsError.value = null
    } catch (e) {
      conditionsError.value = e
    }
  }
  void loadConditions()

  const result = shallowRef<WatchpointCheckResponse | null>(null)
  const checking = ref(false)
  const error = shallowRef<unknown>(null)
  /** Checks re-run by themselves since the user's last one. */
  const rechecks = ref(0)
  const checkedAt = ref(0)
  let last: { conds: CondRequest[]; thisGraph: boolean } | null = null
  let checkedSignature = ''
  let ctl: AbortController | null = null

  /** Checks the dump; `thisGraph` keeps to the rank and graph shown. */
  async function run(conds: CondRequest[], thisGraph: boolean, auto = false): Promise<void> {
    const d = dump.value
    if (!d) return
    last = { conds, thisGraph }
    const signature = dumpSignature(d)
    ctl?.abort()
    const c = new AbortController()
    ctl = c
    checking.value = true
    try {
      const w = where.value
      const scope = thisGraph && w ? { ranks: [w.rank], graph_ids: [w.graph_id] } : {}
      result.value = await api.checkWatchpoints({ dump_id: d.dump_id, conditions: conds, ...scope }, { signal: c.signal })
      checkedSignature = signature
      checkedAt.value = Date.now()
      rechecks.value = auto ? rechecks.value + 1 : 0
      error.value = null
    } catch (e) {
      if (!isAbort(e)) error.value = e
    } finally {
      if (ctl === c) checking.value = false
    }
  }

  /** Runs the last check again when the dump's iterations changed since. */
  async function recheckIfChanged(): Promise<void> {
    const now = dumpSignature(dump.value)
    if (last && !checking.value && now && now !== checkedSignature) await run(last.conds, last.thisGraph, true)
  }

  // Another dump: forget the last check.
  watch(
    () => dump.value?.dump_id,
    () => {
      ctl?.abort()
      result.value = null
      last = null
      rechecks.value = 0
    },
  )
  onBeforeUnmount(() => ctl?.abort())

  /** The first op where NaN/Inf appears, per the last check. */
  const firstBad = computed(() => firstNanInf(result.value))

  return { conditions, targets, conditionsError, loadConditions, result, checking, error, rechecks, checkedAt, firstBad, run, recheckIfChanged }
}
