// Option lists of the segmented toggles, translated (re-computed when the language changes).
import { computed, type ComputedRef } from 'vue'
import { t, type MessageKey } from '@/i18n'

export interface ToggleOption<T extends string> {
  value: T
  label: string
}

export function useOptions<T extends string>(pairs: readonly (readonly [T, MessageKey])[]): ComputedRef<ToggleOption<T>[]> {
  return computed(() => pairs.map(([value, key]) => ({ value, label: t(key) })))
}

export type TimeAxis = 'step' | 'relative' | 'absolute'

/** Step / relative time / absolute time: the x-axis of scalars, the y-axis of histograms. */
export function useTimeAxisOptions(): ComputedRef<ToggleOption<TimeAxis>[]> {
  return useOptions<TimeAxis>([
    ['step', 'common.step'],
    ['relative', 'common.relativeTime'],
    ['absolute', 'common.absoluteTime'],
  ])
}
