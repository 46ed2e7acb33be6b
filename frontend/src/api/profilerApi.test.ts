import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ApiError } from './client'
import { ascend, isMissing, legacy, loadOutcome, missingOf, prof, ProfilerMissing, type ProfTarget } from './profilerApi'

const T: ProfTarget = { trainId: './job', profile: 'profiler', deviceId: '1' }
const FNF = { error_code: '50546084', error_msg: 'The file communication.json of rank 1 not found.' }

/** fetch answering every request with `status` and `body`; the URLs asked are kept */
function answer(status: number, body: unknown): string[] {
  const urls: string[] = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      urls.push(url)
      return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } })
    }),
  )
  return urls
}

beforeEach(() => vi.stubGlobal('document', { baseURI: 'http://host/' }))
afterEach(() => vi.unstubAllGlobals())

describe('profiler API: a missing file is answered one way', () => {
  it('asks with missing_ok, and rejects the 200 {missing} answer with ProfilerMissing carrying the message', async () => {
    const urls = answer(200, { missing: FNF })
    const e = await ascend.communication(T).catch((x: unknown) => x)
    expect(new URL(urls[0]).searchParams.get('missing_ok')).toBe('true')
    expect(e).toBeInstanceOf(ProfilerMissing)
    expect(e).toBeInstanceOf(ApiError)
    expect(isMissing(e)).toBe(true)
    expect(loadOutcome(e)).toBe('missing')
    expect((e as ProfilerMissing).code).toBe('50546084')
    expect((e as ProfilerMissing).message).toBe(FNF.error_msg)
    expect((e as ProfilerMissing).missing).toEqual(FNF)
  })

  it('treats a 400 with a missing (84) or unusable (87) file code the same way, whichever section asks', async () => {
    answer(400, FNF)
    const fromCpu = await prof.memoryUsage(T).catch((x: unknown) => x)
    answer(400, { error_code: '50546087', error_msg: 'Raw file error. step_trace_time.csv has no Step column.' })
    const fromOld = await legacy.flopsSummary(T).catch((x: unknown) => x)
    for (const e of [fromCpu, fromOld]) {
      expect(e).toBeInstanceOf(ProfilerMissing)
      expect(loadOutcome(e)).toBe('missing')
    }
    expect((fromOld as ProfilerMissing).status).toBe(400)
    expect((fromOld as ProfilerMissing).message).toContain('step_trace_time.csv')
  })

  it('POST endpoints answer a missing file like GET ones', async () => {
    const urls = answer(200, { missing: FNF })
    const e = await prof.pipelineOps(T).catch((x: unknown) => x)
    expect(new URL(urls[0]).searchParams.get('missing_ok')).toBe('true')
    expect(loadOutcome(e)).toBe('missing')
  })

  it('any other failure stays an error (a bad parameter, a server error, an unreachable server)', async () => {
    answer(400, { error_code: '50546080', error_msg: 'Param value error.' })
    const bad = await prof.overview(T).catch((x: unknown) => x)
    expect(bad).toBeInstanceOf(ApiError)
    expect(isMissing(bad)).toBe(false)
    expect(loadOutcome(bad)).toBe('error')
    answer(500, {})
    expect(loadOutcome(await ascend.advice(T).catch((x: unknown) => x))).toBe('error')
    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new TypeError('down'))))
    expect(loadOutcome(await ascend.advice(T).catch((x: unknown) => x))).toBe('error')
    expect(loadOutcome(new Error('x'))).toBe('error')
  })

  it('an answer that merely has a `missing` field of another shape is data, not an absence', async () => {
    answer(200, { steps: [], missing: 3 })
    await expect(ascend.stepTraceTime(T)).resolves.toEqual({ steps: [], missing: 3 })
    answer(200, [])
    await expect(prof.timeline(T, {})).resolves.toEqual([])
    expect(missingOf({ missing: FNF })).toEqual(FNF)
    expect(missingOf({ missing: { error_msg: 'no code' } })).toBeNull()
    expect(missingOf(null)).toBeNull()
  })
})
