// Runs a projection in the projector's worker (workers/projector.worker.ts) and follows it: the coordinates
// so far, the iteration, errors. A new run (or leaving the page) terminates the previous worker.
import { onBeforeUnmount, ref, shallowRef } from 'vue'
import type { ProjectRequest } from './projectionCore'
import type { ProjectorMessage } from '@/workers/projector.worker'

export function useProjection() {
  const coords = shallowRef<Float64Array | null>(null)
  const iter = ref(0)
  const total = ref(0)
  const running = ref(false)
  const error = ref('')
  const ms = ref(0)
  let worker: Worker | null = null
  let id = 0

  function stop(): void {
    worker?.terminate()
    worker = null
    running.value = false
  }

  function run(req: ProjectRequest): void {
    stop()
    const myId = ++id
    coords.value = null
    iter.value = 0
    total.value = req.method === 'pca' ? 1 : 0
    error.value = ''
    running.value = true
    try {
      worker = new Worker(new URL('../../workers/projector.worker.ts', import.meta.url), { type: 'module' })
    } catch (e) {
      error.value = e instanceof Error ? e.message : String(e)
      running.value = false
      return
    }
    worker.onmessage = (e: MessageEvent<ProjectorMessage>) => {
      const msg = e.data
      if (msg.id !== myId) return
      if (msg.kind === 'progress') {
        coords.value = msg.coords
        iter.value = msg.iter
        total.value = msg.total
      } else if (msg.kind === 'done') {
        coords.value = msg.coords
        iter.value = total.value || 1
        ms.value = msg.ms
        stop()
      } else {
        error.value = msg.message
        stop()
      }
    }
    worker.onerror = (e) => {
      e.preventDefault()
      error.value = e.message || 'worker error'
      stop()
    }
    worker.postMessage({ ...req, id: myId }, [req.data.buffer])
  }

  onBeforeUnmount(stop)
  return { coords, iter, total, running, error, ms, run, stop }
}
