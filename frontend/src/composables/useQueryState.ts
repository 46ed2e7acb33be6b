// Page state in the URL query (`#/scalars?train_id=./a&tag=loss&smooth=0.6&x=step`), so a
// view can be shared and reloaded. Writes are batched into one router.replace per tick.
import { computed, type WritableComputedRef } from 'vue'
import { useRoute, useRouter, type LocationQuery, type LocationQueryValue } from 'vue-router'

type Raw = LocationQueryValue | LocationQueryValue[] | undefined
type Out = string | string[] | undefined

export interface Codec<T> {
  parse(raw: Raw): T
  format(value: T): Out
}

let pending: Record<string, Out> | null = null

function first(raw: Raw): string | undefined {
  if (Array.isArray(raw)) return raw[0] ?? undefined
  return raw ?? undefined
}

export const codecs = {
  string(def = ''): Codec<string> {
    return { parse: (r) => first(r) ?? def, format: (v) => (v === def ? undefined : v) }
  },
  number(def: number, min = -Infinity, max = Infinity): Codec<number> {
    return {
      parse: (r) => {
        const n = Number(first(r))
        const s = first(r)
        return s === undefined || s === '' || !Number.isFinite(n) ? def : Math.min(max, Math.max(min, n))
      },
      format: (v) => (v === def ? undefined : String(v)),
    }
  },
  bool(def = false): Codec<boolean> {
    return {
      parse: (r) => {
        const s = first(r)
        return s === undefined ? def : s === '1' || s === 'true'
      },
      format: (v) => (v === def ? undefined : v ? '1' : '0'),
    }
  },
  oneOf<T extends string>(values: readonly T[], def: T): Codec<T> {
    return {
      parse: (r) => {
        const s = first(r) as T | undefined
        return s !== undefined && values.includes(s) ? s : def
      },
      format: (v) => (v === def ? undefined : v),
    }
  },
  /** A list as a repeated key. `null` = "not set" (e.g. "all tags"); [] is written as one empty value. */
  list(): Codec<string[] | null> {
    return {
      parse: (r) => {
        if (r === undefined) return null
        const arr = (Array.isArray(r) ? r : [r]).filter((x): x is string => x !== null)
        return arr.filter((x) => x !== '')
      },
      format: (v) => (v === null ? undefined : v.length === 0 ? [''] : v),
    }
  },
}

export function useQueryState() {
  const route = useRoute()
  const router = useRouter()

  function patch(key: string, value: Out): void {
    if (!pending) {
      pending = {}
      queueMicrotask(() => {
        const p = pending ?? {}
        pending = null
        const query: LocationQuery = { ...route.query }
        for (const [k, v] of Object.entries(p)) {
          if (v === undefined) delete query[k]
          else query[k] = v
        }
        router.replace({ query }).catch(() => undefined)
      })
    }
    pending[key] = value
  }

  function param<T>(key: string, codec: Codec<T>): WritableComputedRef<T> {
    return computed<T>({
      get: () => {
        if (pending && key in pending) return codec.parse(pending[key])
        return codec.parse(route.query[key])
      },
      set: (v) => patch(key, codec.format(v)),
    })
  }

  return { param, route }
}
