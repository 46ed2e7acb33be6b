// One request per key: a page whose watchers and mount hook both ask for the same data (the run's tags arrive,
// the selection is set, the first refresh fires) makes the request once instead of starting it twice and
// cancelling one (issue 21: compare and tensors pages). A call with the key of the last request shares its
// promise, running or finished; another key, or `force` (a refresh tick: the data may have changed), starts
// anew and the caller aborts the old request as before.

export type SingleFlight = (key: string, run: () => Promise<void>, force?: boolean) => Promise<void>

export function singleFlight(): SingleFlight {
  let last: string | null = null
  let promise: Promise<void> = Promise.resolve()
  return (key, run, force = false) => {
    if (!force && key === last) return promise
    last = key
    promise = run()
    return promise
  }
}
