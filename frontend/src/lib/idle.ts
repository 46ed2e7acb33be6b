// Work that can wait until the page is idle (requestIdleCallback, with a timeout so it does run on a busy page;
// a short timer where the browser has none).

const TIMEOUT_MS = 1000

export function whenIdle(fn: () => void, timeout = TIMEOUT_MS): number {
  if (typeof window.requestIdleCallback === 'function') return window.requestIdleCallback(() => fn(), { timeout })
  return window.setTimeout(fn, 50)
}

export function cancelIdle(handle: number | undefined): void {
  if (handle === undefined) return
  if (typeof window.cancelIdleCallback === 'function') window.cancelIdleCallback(handle)
  else window.clearTimeout(handle)
}
