import { describe, expect, it } from 'vitest'
import { effectScope, nextTick, ref } from 'vue'
import { ApiError } from '@/api/client'
import { useFetch, type FetchOptions } from './useFetch'

/** a fetcher whose answers the test settles by hand; the signals it was given are kept */
function manual<T>() {
  const calls: { key: string; signal: AbortSignal; resolve: (v: T) => void; reject: (e: unknown) => void }[] = []
  const key = ref('a')
  const fetcher = (signal: AbortSignal) =>
    new Promise<T>((resolve, reject) => {
      calls.push({ key: key.value, signal, resolve, reject })
      signal.addEventListener('abort', () => reject(new ApiError('aborted', 'aborted')))
    })
  return { calls, key, fetcher }
}
const settle = async () => {
  await nextTick()
  await Promise.resolve()
  await nextTick()
}
function start<T>(m: ReturnType<typeof manual<T>>, opts?: FetchOptions) {
  const scope = effectScope()
  const f = scope.run(() => useFetch(() => m.key.value, m.fetcher, opts))!
  return { f, scope }
}

describe('useFetch: the one loader', () => {
  it('loads at once, and keeps the answer with state ready', async () => {
    const m = manual<number>()
    const { f } = start(m)
    expect(f.state.value).toBe('loading')
    m.calls[0].resolve(7)
    await settle()
    expect([f.state.value, f.data.value]).toEqual(['ready', 7])
  })

  it('a new key aborts the request in flight; its late answer is never shown', async () => {
    const m = manual<string>()
    const { f } = start(m)
    m.key.value = 'b'
    await settle()
    expect(m.calls.map((c) => c.key)).toEqual(['a', 'b'])
    expect(m.calls[0].signal.aborted).toBe(true)
    m.calls[1].resolve('B')
    await settle()
    expect([f.state.value, f.data.value]).toEqual(['ready', 'B'])
  })

  it('tells a missing file from an error through `outcome` (default: every failure is an error)', async () => {
    const missing = new ApiError('http', 'The file x not found.', 200, '50546084')
    const outcome = (e: unknown) => (e === missing ? ('missing' as const) : ('error' as const))
    const m = manual<number>()
    const { f } = start(m, { outcome })
    m.calls[0].reject(missing)
    await settle()
    expect([f.state.value, f.error.value, f.data.value]).toEqual(['missing', missing, null])
    const plain = manual<number>()
    const g = start(plain).f
    plain.calls[0].reject(missing)
    await settle()
    expect(g.state.value).toBe('error')
  })

  it('`keep` shows the last answer while the next loads; `when` false asks nothing (idle)', async () => {
    const m = manual<number>()
    const { f } = start(m, { keep: true })
    m.calls[0].resolve(1)
    await settle()
    m.key.value = 'b'
    await settle()
    expect([f.state.value, f.data.value]).toEqual(['ready', 1])
    const allowed = ref(false)
    const n = manual<number>()
    const g = start(n, { when: () => allowed.value }).f
    expect([g.state.value, n.calls.length]).toEqual(['idle', 0])
  })

  it('`drop` forgets the last answer as the next request starts (without it, the answer stays while loading)', async () => {
    const m = manual<number>()
    const { f } = start(m, { drop: true })
    m.calls[0].resolve(1)
    await settle()
    m.key.value = 'b'
    await settle()
    expect([f.state.value, f.data.value]).toEqual(['loading', null])
    const plain = manual<number>()
    const g = start(plain).f
    plain.calls[0].resolve(1)
    await settle()
    plain.key.value = 'b'
    await settle()
    expect([g.state.value, g.data.value]).toEqual(['loading', 1])
  })

  it('aborts its request when its scope (the component) goes', async () => {
    const m = manual<number>()
    const { scope } = start(m)
    scope.stop()
    expect(m.calls[0].signal.aborted).toBe(true)
  })
})
