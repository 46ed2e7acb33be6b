import { describe, expect, it } from 'vitest'
import { singleFlight } from './singleFlight'

describe('singleFlight', () => {
  it('runs a key once while it is the last one asked, and again when forced or for another key', async () => {
    const flight = singleFlight()
    let runs = 0
    const job = () => new Promise<void>((resolve) => setTimeout(() => resolve(void runs++), 5))
    const a = flight('k1', job)
    const b = flight('k1', job)
    expect(b).toBe(a) // the second caller shares the running request
    await Promise.all([a, b])
    expect(runs).toBe(1)
    await flight('k1', job) // finished and unchanged: nothing to ask again
    expect(runs).toBe(1)
    await flight('k1', job, true) // a refresh tick
    expect(runs).toBe(2)
    await flight('k2', job)
    await flight('k1', job) // back to the first key: it is asked again
    expect(runs).toBe(4)
  })
})
