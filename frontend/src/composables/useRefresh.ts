// Re-runs `fn` on every auto-refresh tick (and on the header's refresh button).
import { watch } from 'vue'
import { refresh } from '@/state'

export function onRefresh(fn: () => void): void {
  watch(
    () => refresh.tick,
    () => fn(),
  )
}
