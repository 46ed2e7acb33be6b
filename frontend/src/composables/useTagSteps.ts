// The chosen step of each card of a run page, kept in the URL as `s.<tag>=<step>` (absent = the newest kept
// step): images, PR curves, audio, meshes.
import { useRoute, useRouter } from 'vue-router'

export function useTagSteps() {
  const route = useRoute()
  const router = useRouter()

  /** Index of the chosen step in `steps` (the newest when none is chosen or the chosen one is gone). */
  function index(tag: string, steps: number[]): number {
    const raw = route.query[`s.${tag}`]
    const want = raw === undefined ? NaN : Number(Array.isArray(raw) ? raw[0] : raw)
    const i = steps.indexOf(want)
    return i >= 0 ? i : steps.length - 1
  }

  function choose(tag: string, steps: number[], i: number): void {
    if (i < 0 || i >= steps.length) return
    const query = { ...route.query }
    if (i === steps.length - 1) delete query[`s.${tag}`]
    else query[`s.${tag}`] = String(steps[i])
    void router.replace({ query })
  }

  return { index, choose }
}
