// App-wide UI state: theme, auto-refresh and its tick. Views react to `refreshTick`
// (incremented by one global timer at the reload interval, or by the refresh button)
// and re-query their data while keeping their own selections and zoom.
import { reactive, ref, watch } from 'vue'
import { api } from './api/client'

export type Theme = 'light' | 'dark'

function load(key: string): string | null {
  try {
    return localStorage.getItem(key)
  } catch {
    return null
  }
}
function save(key: string, value: string): void {
  try {
    localStorage.setItem(key, value)
  } catch {
    /* ignore */
  }
}

export const theme = ref<Theme>(load('mitheme') === 'dark' ? 'dark' : 'light')
export function applyTheme(): void {
  document.documentElement.dataset.theme = theme.value
}
watch(theme, (v) => {
  save('mitheme', v)
  applyTheme()
})

/** Default when the server does not say (or says 0 = never rescan): MindInsight's 10 s. */
export const DEFAULT_REFRESH_S = 10
/** Never poll faster than this, whatever the server's reload interval. */
export const MIN_REFRESH_S = 2

/** The server's reload interval as index.html carries it (`<meta name="mi-reload-interval">`), if > 0. */
function servedInterval(): number | null {
  if (typeof document === 'undefined') return null
  const s = Number(document.querySelector('meta[name="mi-reload-interval"]')?.getAttribute('content'))
  return Number.isFinite(s) && s > 0 ? Math.max(MIN_REFRESH_S, s) : null
}

export const refresh = reactive({
  enabled: load('miautorefresh') !== 'false',
  // known from the first paint when the server served the page; ui-config confirms it below
  intervalS: servedInterval() ?? DEFAULT_REFRESH_S,
  /** Incremented on every refresh (timer or button). */
  tick: 0,
  lastAt: 0,
})

watch(
  () => refresh.enabled,
  (v) => {
    save('miautorefresh', String(v))
    restartTimer()
  },
)

let timer: number | undefined
function restartTimer(): void {
  if (timer !== undefined) window.clearInterval(timer)
  timer = undefined
  if (!refresh.enabled) return
  timer = window.setInterval(() => {
    if (document.visibilityState === 'hidden') return
    triggerRefresh()
  }, refresh.intervalS * 1000)
}

export function triggerRefresh(): void {
  refresh.tick++
  refresh.lastAt = Date.now()
}

/** Reads the server's reload interval (ui-config) and starts the refresh timer. */
export async function initRefresh(): Promise<void> {
  const override = Number(new URLSearchParams(location.search).get('refresh'))
  try {
    const cfg = await api.uiConfig()
    const s = Number(cfg.reload_interval)
    if (Number.isFinite(s) && s > 0) refresh.intervalS = Math.max(MIN_REFRESH_S, s)
  } catch {
    /* keep the default */
  }
  // `?refresh=<seconds>` before the hash overrides it (handy for tests and demos).
  if (Number.isFinite(override) && override > 0) refresh.intervalS = Math.max(0.5, override)
  restartTimer()
}
